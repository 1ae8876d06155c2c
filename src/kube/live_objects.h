// Reading a live cluster once, for the dry runs (`nodesmith plan` / `disrupt` --kubeconfig):
// every object of every kind the file inputs accept, as the documents `kubectl get -o json`
// would give, so the same loading path (api/manifest.h LoadDocuments) decodes, converts and
// validates them and the answer is the one the same objects give as files.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/object_set.h"
#include "core/status.h"
#include "kube/rest_client.h"

namespace nodesmith::kube {

// Lists each kind across all namespaces. `source` names the cluster in messages ("cluster
// \"nodesmith-test\""). A kind whose CRD is not installed is skipped — with a warning for
// NodePools and NodeClaims, silently for EC2NodeClasses and the legacy kinds (Provisioner,
// AWSNodeTemplate), which many clusters do not have. Any other failure fails the read.
core::Result<std::vector<api::Sourced<nlohmann::ordered_json>>> ReadClusterDocuments(
    RestClient& client, const std::string& source, std::vector<std::string>* warnings);

}  // namespace nodesmith::kube
