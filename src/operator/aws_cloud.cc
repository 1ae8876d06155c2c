#include "operator/aws_cloud.h"

#include <algorithm>
#include <cctype>

#include "core/base64.h"
#include "kube/resources.h"

namespace nodesmith::op {

namespace {

// Leading digits of `s` ("35+" -> "35"); "" when none.
std::string Digits(const std::string& s) {
  size_t n = 0;
  while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) ++n;
  return s.substr(0, n);
}

}  // namespace

std::string KubernetesMinorVersion(const kube::Json& version) {
  if (!version.is_object()) return "";
  const std::string major = Digits(version.value("major", ""));
  const std::string minor = Digits(version.value("minor", ""));
  if (!major.empty() && !minor.empty()) return major + "." + minor;
  std::string git = version.value("gitVersion", "");
  if (!git.empty() && git[0] == 'v') git.erase(0, 1);
  const size_t dot = git.find('.');
  if (dot == std::string::npos) return "";
  const std::string git_major = Digits(git.substr(0, dot));
  const std::string git_minor = Digits(git.substr(dot + 1));
  if (git_major.empty() || git_minor.empty()) return "";
  return git_major + "." + git_minor;
}

void CompleteFromEks(aws::ClusterIdentity& id, const std::string& api_server,
                     const DescribeEksCluster& eks, std::vector<std::string>* warnings) {
  if (!id.endpoint.empty() && !id.ca_bundle_base64.empty() && !id.service_cidr.empty()) return;
  core::Result<aws::EksCluster> cluster =
      eks ? eks() : core::Result<aws::EksCluster>(core::Status::NotFound("no EKS client"));
  if (cluster.ok()) {
    if (id.endpoint.empty()) id.endpoint = cluster->endpoint;
    if (id.ca_bundle_base64.empty()) id.ca_bundle_base64 = cluster->ca_data;
    if (id.service_cidr.empty()) id.service_cidr = cluster->service_ipv4_cidr;
  }
  if (id.endpoint.empty()) {
    id.endpoint = api_server;
    warnings->push_back("no cluster endpoint from EKS (DescribeCluster " + id.name + ": " +
                        (cluster.ok() ? std::string("it names none") : cluster.status().message()) +
                        "); nodes join " + api_server +
                        ", the API server nodesmith talks to: set CLUSTER_ENDPOINT "
                        "(--cluster-endpoint) if they cannot reach it");
  }
}

core::Result<aws::ClusterIdentity> DiscoverClusterIdentity(const Options& options,
                                                           kube::RestClient& client,
                                                           const DescribeEksCluster& eks,
                                                           std::vector<std::string>* warnings) {
  aws::ClusterIdentity id;
  id.name = options.cluster_name;
  id.endpoint = options.cluster_endpoint;
  if (!options.cluster_ca_bundle.empty()) {
    id.ca_bundle_base64 = options.cluster_ca_bundle;
  } else if (!client.config().ca_pem.empty()) {
    id.ca_bundle_base64 = core::Base64Encode(client.config().ca_pem);
  }

  auto version = client.GetPath("/version");
  if (!version.ok()) {
    return version.status().WithPrefix("reading the API server's version (the AMI aliases need it)");
  }
  id.kubernetes_version = KubernetesMinorVersion(*version);
  if (id.kubernetes_version.empty()) {
    return core::Status::Internal("the API server's /version names no major.minor version: " +
                                  version->dump());
  }

  // The service CIDR AL2023's NodeConfig needs: the API server's own ServiceCIDR object
  // (networking.k8s.io/v1, Kubernetes 1.33 and later), its first IPv4 range.
  auto cidrs = client.Get(kube::resources::kServiceCIDRs, "", "kubernetes");
  if (cidrs.ok()) {
    const kube::Json& spec = (*cidrs)["spec"];
    if (spec.is_object() && spec.contains("cidrs") && spec["cidrs"].is_array()) {
      for (const auto& c : spec["cidrs"]) {
        if (c.is_string() && c.get<std::string>().find(':') == std::string::npos) {
          id.service_cidr = c.get<std::string>();
          break;
        }
      }
    }
  }
  CompleteFromEks(id, client.config().server, eks, warnings);
  if (id.ca_bundle_base64.empty()) {
    warnings->push_back(
        "no CA bundle for the nodes: set CLUSTER_CA_BUNDLE (--cluster-ca-bundle); the API server's "
        "certificate is trusted through the system store here, which nodes may not share");
  }
  if (id.service_cidr.empty()) {
    warnings->push_back(
        "no service CIDR for the nodes (servicecidr/kubernetes" +
        std::string(cidrs.ok() ? " lists no IPv4 range" : ": " + cidrs.status().message()) +
        ", nor the EKS cluster's); AL2023 nodes cannot be launched without it");
  }

  auto dns = client.Get(kube::resources::kServices, "kube-system", "kube-dns");
  if (dns.ok()) {
    const kube::Json& spec = (*dns)["spec"];
    if (spec.is_object()) id.dns_ip = spec.value("clusterIP", "");
  }
  if (id.dns_ip.empty() || id.dns_ip == "None") {
    id.dns_ip.clear();
    warnings->push_back(
        "no cluster DNS IP for the nodes (service kube-system/kube-dns" +
        std::string(dns.ok() ? " has no clusterIP" : ": " + dns.status().message()) +
        "); their kubelets use the AMI's default");
  }
  return id;
}

core::Result<std::unique_ptr<AwsCloud>> AwsCloud::Create(const Options& options,
                                                         kube::RestClient& client,
                                                         cluster::ClusterApi& cluster,
                                                         const core::Clock& clock,
                                                         const core::Clock& wall,
                                                         std::vector<std::string>* warnings) {
  std::unique_ptr<AwsCloud> out(new AwsCloud());

  aws::AwsSessionOptions session_options;
  session_options.region = options.aws_region;
  session_options.clock = &wall;
  auto session = aws::AwsSession::Create(std::move(session_options));
  if (!session.ok()) return session.status().WithPrefix("AWS session");
  out->session_ = std::move(*session);

  out->catalog_flag_ = options.catalog;
  out->live_catalog_ = options.catalog.empty() || options.catalog == aws::kLiveCatalogName;
  out->isolated_vpc_ = options.isolated_vpc;
  out->wall_ = &wall;
  auto catalog = out->LoadCatalog(warnings);
  if (!catalog.ok() && out->live_catalog_) {
    // Without the account's types nothing could launch: the built-in table stands in, and the
    // refresh tries the account again in minutes.
    warnings->push_back("reading the account's instance types failed (" +
                        catalog.status().message() + "); using the built-in table for " +
                        out->session_->region() + " until a refresh succeeds");
    catalog = cloud::LoadCatalog(cloud::CatalogSource::FromFlag("aws"), out->session_->region());
  }
  if (!catalog.ok()) return catalog.status().WithPrefix("instance types");
  out->catalog_ = std::move(*catalog);

  aws::EksClient eks(&out->session_->eks());
  auto identity = DiscoverClusterIdentity(
      options, client, [&] { return eks.DescribeCluster(options.cluster_name); }, warnings);
  if (!identity.ok()) return identity.status();
  out->identity_ = *identity;

  aws::AwsCloudProviderOptions provider_options;
  provider_options.cluster = out->identity_;
  provider_options.instance_types = out->catalog_.instance_types;
  provider_options.node_classes =
      [&cluster](const std::string& name) -> core::Result<api::EC2NodeClass> {
    return cluster.Get<api::EC2NodeClass>("", name);
  };
  out->provider_ =
      std::make_unique<aws::AwsCloudProvider>(*out->session_, clock, std::move(provider_options));

  aws::NodeClassStatusOptions status_options;
  status_options.refresh_interval =
      std::min(options.ami_refresh_interval, options.subnet_refresh_interval);
  status_options.dry_run = options.dry_run;
  status_options.disable_dry_run = options.disable_dry_run;
  if (!options.dry_run) {
    out->iam_ = std::make_unique<aws::IamClient>(&out->session_->iam());
    aws::InstanceProfileOptions profile_options;
    profile_options.cluster_name = out->identity_.name;
    profile_options.region = out->session_->region();
    out->instance_profiles_ =
        std::make_unique<aws::InstanceProfileReconciler>(out->iam_.get(), profile_options);
    status_options.instance_profiles = out->instance_profiles_.get();
    out->instance_profile_gc_ = std::make_unique<aws::InstanceProfileGcController>(
        clock, cluster, *out->iam_, *out->instance_profiles_);
  }
  out->status_controller_ = std::make_unique<aws::NodeClassStatusController>(
      clock, cluster, *out->provider_, status_options);
  out->hash_controller_ =
      std::make_unique<aws::NodeClassHashController>(cluster, out->identity_.ca_bundle_base64);
  out->launch_template_gc_ = std::make_unique<aws::LaunchTemplateGcController>(*out->provider_);
  out->tagging_controller_ = std::make_unique<aws::NodeClaimTaggingController>(
      cluster, *out->session_, out->identity_.name);

  out->dry_run_ = options.dry_run;
  if (!options.interruption_queue.empty() && options.dry_run) {
    warnings->push_back("dry run: the interruption queue " + options.interruption_queue +
                        " is not read (reading deletes its messages, which another autoscaler "
                        "may need)");
  } else if (!options.interruption_queue.empty()) {
    out->sqs_ = std::make_unique<aws::SqsClient>(&out->session_->sqs());
    aws::SqsInterruptionQueueOptions queue_options;
    queue_options.queue_name = options.interruption_queue;
    out->queue_ = std::make_unique<aws::SqsInterruptionQueue>(out->sqs_.get(), queue_options);
    core::Status started = out->queue_->Start();
    if (!started.ok()) return started;
  }
  return out;
}

core::Result<cloud::Catalog> AwsCloud::LoadCatalog(std::vector<std::string>* warnings) {
  if (live_catalog_) {
    // What the account offers, as Karpenter-AWS reads it.
    aws::LiveCatalogOptions live;
    live.isolated_vpc = isolated_vpc_;
    return aws::LoadLiveCatalog(*session_, *wall_, live, warnings);
  }
  return cloud::LoadCatalog(cloud::CatalogSource::FromFlag(catalog_flag_), session_->region());
}

void AwsCloud::ApplyCatalog(cloud::Catalog catalog) {
  catalog_ = std::move(catalog);
  provider_->SetInstanceTypes(catalog_.instance_types);
}

}  // namespace nodesmith::op
