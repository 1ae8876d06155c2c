// Decode/encode of the pieces shared across kinds (metadata, selectors, taints, pod templates).
// Internal to the codec_*.cc files.
#pragma once

#include "api/decode_util.h"
#include "api/meta.h"
#include "api/pod.h"
#include "api/selector.h"

namespace nodesmith::api {

void DecodeMeta(const Reader& r, ObjectMeta* m);
void DecodeConditions(const Reader& r, const char* key, std::vector<Condition>* out);
void DecodeLabelSelector(const Reader& r, LabelSelector* s);
void DecodeNodeSelectorRequirement(const Reader& r, NodeSelectorRequirement* req);
void DecodeNodeSelector(const Reader& r, NodeSelector* s);
void DecodeTaint(const Reader& r, Taint* t);
void DecodePodSpec(const Reader& r, PodSpec* spec);
void DecodePodTemplate(const Reader& r, PodTemplateSpec* t);

Json EncodeMeta(const ObjectMeta& m);
Json EncodeConditions(const std::vector<Condition>& conditions);
Json EncodeLabelSelector(const LabelSelector& s);
Json EncodeNodeSelectorRequirement(const NodeSelectorRequirement& req);
Json EncodeNodeSelector(const NodeSelector& s);
Json EncodeTaint(const Taint& t);
Json EncodePodSpec(const PodSpec& spec);
Json EncodePodTemplate(const PodTemplateSpec& t);

// Runs `decode` on a Reader over `doc` and returns its first error.
template <typename F>
core::Status DecodeDocument(const JsonView& doc, F decode) {
  DecodeErrors errors;
  Reader r(doc, "", &errors);
  if (r.ok()) decode(r);
  return errors.ToStatus();
}

// {"apiVersion": ..., "kind": ...}: the head of every encoded object.
Json Head(const char* api_version, const std::string& kind);

}  // namespace nodesmith::api
