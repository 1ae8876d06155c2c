// InstanceTypeCatalog documents become instance types as the CLI contract specifies.
#include "cloud/catalog_file.h"

#include <gtest/gtest.h>

#include "scheduling/well_known_labels.h"

namespace nodesmith::cloud {
namespace {

namespace s = scheduling;
using api::Quantity;

// The contract's example catalog.
api::InstanceTypeCatalog ContractExample() {
  api::InstanceTypeCatalog c;
  c.metadata.name = "example";
  c.well_known_labels = {"size", "special"};
  c.default_overhead = api::CatalogOverhead{
      {{"cpu", Quantity::MustParse("100m")}, {"memory", Quantity::MustParse("10Mi")}}, {}, {}};
  c.default_offerings = {{"test-zone-1", "spot", 1.0, true}};
  api::CatalogInstanceType t;
  t.name = "default-instance-type";
  t.capacity = {{"cpu", Quantity::MustParse("4")},
                {"memory", Quantity::MustParse("4Gi")},
                {"pods", Quantity::MustParse("5")}};
  t.price = 0.8294967296;
  t.labels = {{"kubernetes.io/arch", "amd64"}, {"size", "small"}};
  t.requirements = {{"kubernetes.io/os", "In", {"linux", "windows"}, std::nullopt},
                    {"special", "DoesNotExist", {}, std::nullopt}};
  t.offerings = std::vector<api::CatalogOffering>{{"test-zone-1", "on-demand", 0.83, true}};
  c.instance_types.push_back(t);
  return c;
}

TEST(CatalogFile, ContractExampleType) {
  auto types = InstanceTypesFromCatalog(ContractExample());
  ASSERT_TRUE(types.ok()) << types.status().message();
  ASSERT_EQ(types->size(), 1u);
  const InstanceType& it = *(*types)[0];
  EXPECT_EQ(it.name, "default-instance-type");
  EXPECT_EQ(it.requirements.Get("kubernetes.io/arch").Values(), std::vector<std::string>{"amd64"});
  EXPECT_EQ(it.requirements.Get("size").Values(), std::vector<std::string>{"small"});
  EXPECT_EQ(it.requirements.Get("kubernetes.io/os").Values(),
            (std::vector<std::string>{"linux", "windows"}));
  EXPECT_EQ(it.requirements.Get("special").op(), s::Operator::kDoesNotExist);
  EXPECT_EQ(it.requirements.Get(s::kLabelInstanceTypeStable).Any(), "default-instance-type");
  EXPECT_EQ(it.requirements.Get(s::kLabelTopologyZone).Values(),
            std::vector<std::string>{"test-zone-1"});
  EXPECT_EQ(it.requirements.Get(s::kLabelCapacityType).Values(),
            std::vector<std::string>{"on-demand"});
  // Its own offerings replace the defaults.
  ASSERT_EQ(it.offerings.size(), 1u);
  EXPECT_DOUBLE_EQ(it.offerings[0].price, 0.83);
  // defaults.overhead applies: allocatable = capacity − 100m cpu − 10Mi memory.
  EXPECT_EQ(it.allocatable.Get("cpu"), Quantity::MustParse("3900m"));
  EXPECT_EQ(it.allocatable.Get("memory"), Quantity::MustParse("4086Mi"));
  EXPECT_EQ(it.allocatable.Get("pods"), Quantity::MustParse("5"));
}

TEST(CatalogFile, DefaultsFillOfferingsAndPricesFallBackToTheType) {
  api::InstanceTypeCatalog c = ContractExample();
  c.default_offerings = {{"z1", "spot", std::nullopt, true}, {"z2", "on-demand", 2.5, true}};
  c.instance_types[0].offerings.reset();
  auto types = InstanceTypesFromCatalog(c);
  ASSERT_TRUE(types.ok());
  const InstanceType& it = *(*types)[0];
  ASSERT_EQ(it.offerings.size(), 2u);
  EXPECT_DOUBLE_EQ(it.offerings[0].price, 0.8294967296);  // price omitted => the type's price
  EXPECT_DOUBLE_EQ(it.offerings[1].price, 2.5);
}

TEST(CatalogFile, OwnOverheadWinsAndPodsDefaultTo110) {
  api::InstanceTypeCatalog c = ContractExample();
  c.instance_types[0].overhead = api::CatalogOverhead{
      {}, {{"cpu", Quantity::MustParse("1")}}, {{"memory", Quantity::MustParse("1Gi")}}};
  c.instance_types[0].capacity.Erase("pods");
  auto types = InstanceTypesFromCatalog(c);
  ASSERT_TRUE(types.ok());
  const InstanceType& it = *(*types)[0];
  EXPECT_EQ(it.allocatable.Get("cpu"), Quantity::MustParse("3"));
  EXPECT_EQ(it.allocatable.Get("memory"), Quantity::MustParse("3Gi"));
  EXPECT_EQ(it.capacity.Get("pods"), Quantity::MustParse("110"));
}

TEST(CatalogFile, TypesAreSortedByName) {
  api::InstanceTypeCatalog c = ContractExample();
  api::CatalogInstanceType a = c.instance_types[0];
  a.name = "a-type";
  c.instance_types.push_back(a);
  auto types = InstanceTypesFromCatalog(c);
  ASSERT_TRUE(types.ok());
  EXPECT_EQ((*types)[0]->name, "a-type");
  EXPECT_EQ((*types)[1]->name, "default-instance-type");
}

TEST(CatalogFile, InvalidInputNamesTheField) {
  api::InstanceTypeCatalog dup = ContractExample();
  dup.instance_types.push_back(dup.instance_types[0]);
  auto d = InstanceTypesFromCatalog(dup);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("duplicate"), std::string::npos);

  api::InstanceTypeCatalog bad_req = ContractExample();
  bad_req.instance_types[0].requirements.push_back({"x", "Gt", {"many"}, std::nullopt});
  auto r = InstanceTypesFromCatalog(bad_req);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(
      r.status().message().find("spec.instanceTypes[0] (default-instance-type).requirements[2]"),
      std::string::npos)
      << r.status().message();

  api::InstanceTypeCatalog bad_ct = ContractExample();
  bad_ct.default_offerings[0].capacity_type = "preemptible";
  bad_ct.instance_types[0].offerings.reset();
  auto ct = InstanceTypesFromCatalog(bad_ct);
  ASSERT_FALSE(ct.ok());
  EXPECT_NE(ct.status().message().find("spec.defaults.offerings[0].capacityType"),
            std::string::npos);
}

TEST(CatalogFile, WellKnownLabelsAreExtended) {
  const s::LabelKeySet keys = CatalogWellKnownLabels(ContractExample());
  EXPECT_TRUE(keys.Contains("size"));
  EXPECT_TRUE(keys.Contains("special"));
  EXPECT_TRUE(keys.Contains(s::kLabelTopologyZone));
}

}  // namespace
}  // namespace nodesmith::cloud
