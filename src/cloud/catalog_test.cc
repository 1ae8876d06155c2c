// LoadCatalog: one entry point for the aws, kwok, file and in-input catalogs.
#include "cloud/catalog.h"

#include <gtest/gtest.h>

#include <fstream>

#include "cloud/labels.h"

namespace nodesmith::cloud {
namespace {

namespace s = scheduling;
using api::Quantity;

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

const char* kContractCatalog = R"(apiVersion: nodesmith.dev/v1alpha1
kind: InstanceTypeCatalog
metadata: {name: example}
spec:
  wellKnownLabels: [size, special]
  defaults:
    overhead: {kubeReserved: {cpu: 100m, memory: 10Mi}, systemReserved: {}, evictionThreshold: {}}
    offerings:
    - {zone: test-zone-1, capacityType: spot, price: 1.0}
  instanceTypes:
  - name: default-instance-type
    capacity: {cpu: "4", memory: 4Gi, pods: "5"}
    price: 0.8294967296
    labels: {kubernetes.io/arch: amd64, size: small}
    requirements:
    - {key: kubernetes.io/os, operator: In, values: [linux, windows]}
    - {key: special, operator: DoesNotExist}
    offerings:
    - {zone: test-zone-1, capacityType: on-demand, price: 0.83, available: true}
  - name: b-type
    capacity: {cpu: "2", memory: 2Gi}
    price: 0.5
)";

TEST(CatalogSource, FlagSpellings) {
  EXPECT_EQ(CatalogSource::FromFlag("aws").kind, CatalogSource::Kind::kAws);
  EXPECT_EQ(CatalogSource::FromFlag("").kind, CatalogSource::Kind::kAws);
  EXPECT_EQ(CatalogSource::FromFlag("kwok").kind, CatalogSource::Kind::kKwok);
  CatalogSource file = CatalogSource::FromFlag("types.yaml");
  EXPECT_EQ(file.kind, CatalogSource::Kind::kFile);
  EXPECT_EQ(file.Describe(), "types.yaml");
}

TEST(LoadCatalog, AwsDefaultsToUsWest2) {
  auto c = LoadCatalog(CatalogSource::FromFlag("aws"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->region, "us-west-2");
  EXPECT_EQ(c->source, "aws");
  ASSERT_FALSE(c->instance_types.empty());
  EXPECT_EQ(c->instance_types[0]->offerings[0].zone, "us-west-2a");
  EXPECT_TRUE(c->well_known_labels.Contains(s::kLabelInstanceFamily));
}

TEST(LoadCatalog, AwsHonoursRegionAndNodeClassKubelet) {
  api::EC2NodeClass nc;
  nc.metadata.name = "default";
  nc.kubelet = api::KubeletConfiguration{};
  nc.kubelet->max_pods = 42;
  auto c = LoadCatalog(CatalogSource::FromFlag("aws"), "us-east-1", nc);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->region, "us-east-1");
  for (const auto& t : c->instance_types) {
    EXPECT_EQ(t->capacity.Get("pods"), Quantity::FromInt(42)) << t->name;
  }
}

TEST(LoadCatalog, AwsBadNodeClassQuantityNamesTheNodeClass) {
  api::EC2NodeClass nc;
  nc.metadata.name = "broken";
  nc.kubelet = api::KubeletConfiguration{};
  nc.kubelet->kube_reserved = {{"memory", "1 gig"}};
  auto c = LoadCatalog(CatalogSource::FromFlag("aws"), "", nc);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("EC2NodeClass broken"), std::string::npos);
}

TEST(LoadCatalog, Kwok) {
  auto c = LoadCatalog(CatalogSource::FromFlag("kwok"), "eu-west-1");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->instance_types.size(), 144u);
  EXPECT_EQ(c->region, "");
  EXPECT_TRUE(c->well_known_labels.Contains(kLabelKwokInstanceCpu));
}

TEST(LoadCatalog, FileWithTheContractExample) {
  const std::string path = WriteTemp("contract_catalog.yaml", kContractCatalog);
  auto c = LoadCatalog(CatalogSource::FromFlag(path));
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->instance_types.size(), 2u);
  EXPECT_EQ(c->instance_types[0]->name, "b-type");
  const InstanceType& b = *c->instance_types[0];
  ASSERT_EQ(b.offerings.size(), 1u);
  EXPECT_EQ(b.offerings[0].capacity_type, "spot");
  EXPECT_DOUBLE_EQ(b.offerings[0].price, 1.0);
  EXPECT_EQ(b.allocatable.Get("cpu"), Quantity::MustParse("1900m"));
  const InstanceType& d = *c->instance_types[1];
  EXPECT_EQ(d.requirements.Get("size").Any(), "small");
  EXPECT_DOUBLE_EQ(d.offerings[0].price, 0.83);
  EXPECT_TRUE(c->well_known_labels.Contains("special"));
}

TEST(LoadCatalog, FileErrors) {
  auto missing = LoadCatalog(CatalogSource::FromFlag("/nonexistent/catalog.yaml"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/catalog.yaml"), std::string::npos);

  const std::string none = WriteTemp(
      "not_a_catalog.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n");
  auto empty = LoadCatalog(CatalogSource::FromFlag(none));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("no InstanceTypeCatalog"), std::string::npos)
      << empty.status().message();
}

TEST(LoadCatalog, ObjectSource) {
  api::InstanceTypeCatalog object;
  object.metadata.name = "inline";
  api::CatalogInstanceType t;
  t.name = "tiny";
  t.capacity = {{"cpu", Quantity::MustParse("1")}};
  t.price = 0.01;
  object.default_offerings = {{"z", "on-demand", std::nullopt, true}};
  object.instance_types = {t};
  auto c = LoadCatalog(CatalogSource::FromObject(object));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->source, "InstanceTypeCatalog/inline");
  ASSERT_EQ(c->instance_types.size(), 1u);
  EXPECT_DOUBLE_EQ(c->instance_types[0]->offerings[0].price, 0.01);
}

}  // namespace
}  // namespace nodesmith::cloud
