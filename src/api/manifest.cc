#include "api/manifest.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "api/codec.h"
#include "api/legacy.h"
#include "api/validation.h"
#include "api/yaml_json.h"

namespace nodesmith::api {
namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

std::string Str(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::string NameOf(const Json& doc) {
  return doc.is_object() && doc.contains("metadata") ? Str(doc["metadata"], "name") : "";
}

std::string GroupOf(const std::string& api_version) {
  size_t slash = api_version.find('/');
  return slash == std::string::npos ? "" : api_version.substr(0, slash);
}

core::Status ReadFile(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::Status::Invalid(path + ": cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return core::Status::Invalid(path + ": read error");
  *text = ss.str();
  return core::Status::Ok();
}

core::Status ExpandPath(const std::string& path, std::vector<std::string>* files) {
  if (path == "-") {
    files->push_back("-");
    return core::Status::Ok();
  }
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return core::Status::Invalid(path + ": no such file or directory");
  if (!fs::is_directory(st)) {
    files->push_back(path);
    return core::Status::Ok();
  }
  std::vector<std::string> found;
  for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    std::string ext = it->path().extension().string();
    if (ext == ".yaml" || ext == ".yml" || ext == ".json") found.push_back(it->path().string());
  }
  if (ec) return core::Status::Invalid(path + ": " + ec.message());
  std::sort(found.begin(), found.end());
  files->insert(files->end(), found.begin(), found.end());
  return core::Status::Ok();
}

// Splits one file's text into sourced documents (Lists unpacked).
core::Status SplitDocuments(std::string_view text, const std::string& file, std::vector<Sourced<Json>>* out) {
  auto parsed = ParseDocuments(text);
  if (!parsed.ok()) return core::Status::Invalid(file + ": " + parsed.status().message());
  int number = 0;
  for (ParsedDocument& doc : *parsed) {
    ++number;
    SourceRef source{file, number, Str(doc.value, "kind"), NameOf(doc.value)};
    if (!doc.error.empty()) {
      return core::Status::Invalid(DescribeSource(source) + ": " +
                                   (doc.error_path.empty() ? "" : doc.error_path + ": ") + doc.error);
    }
    if (doc.value.is_null()) continue;  // an empty document ("---" at the end, comments only)
    if (!doc.value.is_object()) {
      return core::Status::Invalid(DescribeSource(source) +
                                   ": expected a Kubernetes object (a mapping with apiVersion and kind), got " +
                                   (doc.value.is_array() ? std::string("a list") : doc.value.dump()));
    }
    if (source.kind == "List" || (source.kind.size() > 4 && source.kind.ends_with("List") &&
                                  doc.value.contains("items"))) {
      const Json& items = doc.value.contains("items") ? doc.value["items"] : Json();
      if (!items.is_array() && !items.is_null()) {
        return core::Status::Invalid(DescribeSource(source) + ": items: expected a list");
      }
      int item_number = 0;
      for (const Json& item : items.is_array() ? items : Json::array()) {
        ++item_number;
        SourceRef item_source{file, number, Str(item, "kind"), NameOf(item), item_number};
        if (!item.is_object()) {
          return core::Status::Invalid(DescribeSource(item_source) + ": expected a Kubernetes object");
        }
        out->push_back({item, item_source});
      }
      continue;
    }
    out->push_back({std::move(doc.value), source});
  }
  return core::Status::Ok();
}

core::Status CheckHead(const Sourced<Json>& doc) {
  if (Str(doc.object, "apiVersion").empty() || Str(doc.object, "kind").empty()) {
    return core::Status::Invalid(DescribeSource(doc.source) + ": apiVersion and kind are required (strings)");
  }
  return core::Status::Ok();
}

core::Result<std::vector<Sourced<Json>>> Finish(std::vector<Sourced<Json>> docs, std::vector<std::string>* warnings) {
  for (const auto& d : docs) NS_RETURN_IF_ERROR(CheckHead(d));
  NS_RETURN_IF_ERROR(ConvertLegacyDocuments(&docs, warnings));
  return docs;
}

// The message prefix for a document: where it is and, when it was converted, what it became.
std::string Prefix(const Sourced<Json>& doc) {
  std::string out = DescribeSource(doc.source);
  std::string kind = Str(doc.object, "kind");
  if (!doc.source.kind.empty() && kind != doc.source.kind) {
    out += " as " + Str(doc.object, "apiVersion") + " " + kind;
  }
  return out;
}

template <typename T>
using DecodeFn = core::Status (*)(const JsonView&, T*);

// Decodes into `list`, fills the namespace, validates; all errors carry the document prefix.
template <typename T, typename V>
core::Status Add(const Sourced<Json>& doc, DecodeFn<T> decode, bool namespaced, V validate,
                 std::vector<Sourced<T>>* list) {
  T value{};
  core::Status st = decode(doc.object, &value);
  if (st.ok()) {
    if (namespaced && value.metadata.namespace_.empty()) value.metadata.namespace_ = "default";
    if (!namespaced) value.metadata.namespace_.clear();
    st = validate(value);
  }
  if (!st.ok()) return core::Status::Invalid(Prefix(doc) + ": " + st.message());
  list->push_back({std::move(value), doc.source});
  return core::Status::Ok();
}

core::Status ValidatePod(const Pod& pod) {
  NS_RETURN_IF_ERROR(ValidateObjectMeta(pod.metadata));
  return ValidatePodSpec(pod.spec, "spec");
}

core::Status ValidateTemplate(const ObjectMeta& meta, const std::optional<LabelSelector>& selector,
                              const PodTemplateSpec& tmpl) {
  NS_RETURN_IF_ERROR(ValidateObjectMeta(meta));
  if (selector) NS_RETURN_IF_ERROR(ValidateLabelSelector(*selector, "spec.selector"));
  return ValidatePodSpec(tmpl.spec, "spec.template.spec");
}

core::Status CountAtLeastZero(int n, const char* path) {
  if (n < 0) return core::Status::Invalid(std::string(path) + ": must not be negative, got " + std::to_string(n));
  return core::Status::Ok();
}

// Two documents defining the same object: kubectl would keep the last, silently. Refuse instead.
template <typename T, typename KeyFn>
core::Status CheckUnique(const std::vector<Sourced<T>>& list, KeyFn key) {
  std::map<std::string, const SourceRef*> seen;
  for (const auto& s : list) {
    auto [it, inserted] = seen.emplace(key(s.object), &s.source);
    if (!inserted) {
      return core::Status::Invalid(DescribeSource(s.source) + ": duplicates the object defined at " +
                                   DescribeSource(*it->second));
    }
  }
  return core::Status::Ok();
}

core::Status CheckAllUnique(const ObjectSet& set) {
  auto by_key = [](const auto& o) { return o.metadata.Key(); };
  NS_RETURN_IF_ERROR(CheckUnique(set.pods, by_key));
  NS_RETURN_IF_ERROR(CheckUnique(set.nodes, by_key));
  NS_RETURN_IF_ERROR(CheckUnique(set.persistent_volume_claims, by_key));
  NS_RETURN_IF_ERROR(CheckUnique(set.persistent_volumes, by_key));
  NS_RETURN_IF_ERROR(CheckUnique(set.storage_classes, by_key));
  NS_RETURN_IF_ERROR(CheckUnique(set.replicated_workloads,
                                 [](const ReplicatedWorkload& w) { return w.kind + "/" + w.metadata.Key(); }));
  NS_RETURN_IF_ERROR(CheckUnique(set.daemon_sets, by_key));
  NS_RETURN_IF_ERROR(CheckUnique(set.jobs, by_key));
  NS_RETURN_IF_ERROR(CheckUnique(set.pod_disruption_budgets, by_key));
  NS_RETURN_IF_ERROR(CheckUnique(set.node_pools, by_key));
  NS_RETURN_IF_ERROR(CheckUnique(set.node_claims, by_key));
  NS_RETURN_IF_ERROR(CheckUnique(set.ec2_node_classes, by_key));
  // One catalog describes the cloud; a second would be ignored without a word.
  if (set.instance_type_catalogs.size() > 1) {
    return core::Status::Invalid(DescribeSource(set.instance_type_catalogs[1].source) +
                                 ": a second InstanceTypeCatalog; give one (the first is at " +
                                 DescribeSource(set.instance_type_catalogs[0].source) + ")");
  }
  return core::Status::Ok();
}

core::Result<ObjectSet> Build(core::Result<std::vector<Sourced<Json>>> docs, std::vector<std::string> warnings) {
  if (!docs.ok()) return docs.status();
  ObjectSet set;
  set.warnings = std::move(warnings);
  for (const auto& d : *docs) NS_RETURN_IF_ERROR(AddDocument(d, &set));
  NS_RETURN_IF_ERROR(CheckAllUnique(set));
  return set;
}

}  // namespace

std::string DescribeSource(const SourceRef& source) {
  std::string out = source.file.empty() ? "<unknown>" : source.file;
  if (source.document > 0) out += ": document " + std::to_string(source.document);
  if (source.item > 0) out += ", item " + std::to_string(source.item);
  std::string what = source.kind;
  std::string name = source.name.size() > 80 ? source.name.substr(0, 64) + "..." : source.name;
  if (!name.empty()) what += (what.empty() ? "" : " ") + name;
  if (!what.empty()) out += " (" + what + ")";
  return out;
}

core::Result<std::vector<Sourced<Json>>> ReadDocuments(const std::vector<std::string>& paths,
                                                       std::vector<std::string>* warnings) {
  std::vector<std::string> files;
  for (const auto& p : paths) NS_RETURN_IF_ERROR(ExpandPath(p, &files));
  std::vector<Sourced<Json>> docs;
  for (const auto& f : files) {
    std::string text;
    std::string name = f;
    if (f == "-") {
      name = "<stdin>";
      text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else {
      NS_RETURN_IF_ERROR(ReadFile(f, &text));
    }
    NS_RETURN_IF_ERROR(SplitDocuments(text, name, &docs));
  }
  return Finish(std::move(docs), warnings);
}

core::Result<std::vector<Sourced<Json>>> ReadDocumentsFromString(std::string_view text, const std::string& file_name,
                                                                 std::vector<std::string>* warnings) {
  std::vector<Sourced<Json>> docs;
  NS_RETURN_IF_ERROR(SplitDocuments(text, file_name, &docs));
  return Finish(std::move(docs), warnings);
}

core::Status AddDocument(const Sourced<Json>& doc, ObjectSet* set) {
  const std::string api_version = Str(doc.object, "apiVersion");
  const std::string kind = Str(doc.object, "kind");
  const std::string group = GroupOf(api_version);
  auto meta_only = [](const auto& o) { return ValidateObjectMeta(o.metadata); };
  if (group.empty() && api_version == "v1") {
    if (kind == "Pod") return Add<Pod>(doc, DecodePod, true, ValidatePod, &set->pods);
    if (kind == "Node") return Add<Node>(doc, DecodeNode, false, ValidateNode, &set->nodes);
    if (kind == "PersistentVolumeClaim") {
      return Add<PersistentVolumeClaim>(doc, DecodePersistentVolumeClaim, true, meta_only,
                                        &set->persistent_volume_claims);
    }
    if (kind == "PersistentVolume") {
      return Add<PersistentVolume>(doc, DecodePersistentVolume, false, meta_only, &set->persistent_volumes);
    }
  } else if (group == "apps") {
    if (kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet") {
      return Add<ReplicatedWorkload>(
          doc, DecodeReplicatedWorkload, true,
          [](const ReplicatedWorkload& w) {
            NS_RETURN_IF_ERROR(CountAtLeastZero(w.replicas, "spec.replicas"));
            return ValidateTemplate(w.metadata, w.selector, w.template_);
          },
          &set->replicated_workloads);
    }
    if (kind == "DaemonSet") {
      return Add<DaemonSet>(
          doc, DecodeDaemonSet, true,
          [](const DaemonSet& d) { return ValidateTemplate(d.metadata, d.selector, d.template_); }, &set->daemon_sets);
    }
  } else if (group == "batch" && kind == "Job") {
    return Add<Job>(
        doc, DecodeJob, true,
        [](const Job& j) {
          NS_RETURN_IF_ERROR(CountAtLeastZero(j.parallelism, "spec.parallelism"));
          if (j.completions) NS_RETURN_IF_ERROR(CountAtLeastZero(*j.completions, "spec.completions"));
          return ValidateTemplate(j.metadata, std::nullopt, j.template_);
        },
        &set->jobs);
  } else if (group == "policy" && kind == "PodDisruptionBudget") {
    return Add<PodDisruptionBudget>(
        doc, DecodePodDisruptionBudget, true,
        [](const PodDisruptionBudget& p) {
          NS_RETURN_IF_ERROR(ValidateObjectMeta(p.metadata));
          if (p.min_available && p.max_unavailable) {
            return core::Status::Invalid("spec: minAvailable and maxUnavailable are mutually exclusive");
          }
          // As the API server validates them (ValidatePositiveIntOrPercent, IsNotMoreThan100Percent).
          for (const auto& [field, value] : {std::pair{"spec.minAvailable", &p.min_available},
                                             std::pair{"spec.maxUnavailable", &p.max_unavailable}}) {
            if (!*value) continue;
            const IntOrString& v = **value;
            if (!v.is_string) {
              if (v.int_value < 0) {
                return core::Status::Invalid(std::string(field) + ": must be greater than or equal to 0, got " +
                                             v.String());
              }
              continue;
            }
            const std::string& t = v.str_value;
            const bool percent = t.size() >= 2 && t.size() <= 11 && t.back() == '%' &&
                                 std::all_of(t.begin(), t.end() - 1, [](char c) { return c >= '0' && c <= '9'; });
            if (!percent) {
              return core::Status::Invalid(std::string(field) + ": must be an integer or a percentage like \"50%\", got \"" +
                                           t + "\"");
            }
            if (std::stoll(t.substr(0, t.size() - 1)) > 100) {
              return core::Status::Invalid(std::string(field) + ": must not be greater than 100%, got " + t);
            }
          }
          return p.selector ? ValidateLabelSelector(*p.selector, "spec.selector") : core::Status::Ok();
        },
        &set->pod_disruption_budgets);
  } else if (group == "storage.k8s.io" && kind == "StorageClass") {
    return Add<StorageClass>(
        doc, DecodeStorageClass, false,
        [](const StorageClass& sc) {
          NS_RETURN_IF_ERROR(ValidateObjectMeta(sc.metadata));
          if (sc.volume_binding_mode != "Immediate" && sc.volume_binding_mode != "WaitForFirstConsumer") {
            return core::Status::Invalid("volumeBindingMode: must be Immediate or WaitForFirstConsumer");
          }
          return core::Status::Ok();
        },
        &set->storage_classes);
  } else if (api_version == "karpenter.sh/v1") {
    if (kind == "NodePool") return Add<NodePool>(doc, DecodeNodePool, false, ValidateNodePool, &set->node_pools);
    if (kind == "NodeClaim") return Add<NodeClaim>(doc, DecodeNodeClaim, false, ValidateNodeClaim, &set->node_claims);
  } else if (api_version == "karpenter.k8s.aws/v1" && kind == "EC2NodeClass") {
    return Add<EC2NodeClass>(doc, DecodeEC2NodeClass, false, ValidateEC2NodeClass, &set->ec2_node_classes);
  } else if (api_version == "nodesmith.dev/v1alpha1") {
    if (kind == "InstanceTypeCatalog") {
      return Add<InstanceTypeCatalog>(doc, DecodeInstanceTypeCatalog, false, ValidateInstanceTypeCatalog,
                                      &set->instance_type_catalogs);
    }
    if (kind == "Scenario") {
      if (!doc.object.contains("spec") || !doc.object["spec"].is_object()) {
        return core::Status::Invalid(Prefix(doc) + ": spec: expected a mapping");
      }
      set->scenarios.push_back(doc);
      return core::Status::Ok();
    }
  }
  set->warnings.push_back(DescribeSource(doc.source) + ": kind " + api_version + "/" + kind +
                          " is not used by nodesmith; ignored");
  return core::Status::Ok();
}

core::Result<ObjectSet> LoadManifests(const std::vector<std::string>& paths) {
  std::vector<std::string> warnings;
  auto docs = ReadDocuments(paths, &warnings);
  return Build(std::move(docs), std::move(warnings));
}

core::Result<ObjectSet> LoadDocuments(std::vector<Sourced<Json>> docs,
                                      std::vector<std::string> warnings) {
  return Build(Finish(std::move(docs), &warnings), std::move(warnings));
}

core::Result<ObjectSet> LoadManifestsFromString(std::string_view text, const std::string& file_name) {
  std::vector<std::string> warnings;
  auto docs = ReadDocumentsFromString(text, file_name, &warnings);
  return Build(std::move(docs), std::move(warnings));
}

}  // namespace nodesmith::api
