// NodeSelectorRequirements as NodePools, NodeClaims and pods' node affinity carry them, on
// arbitrary JSON: `[[r...], [r...]]` (two lists, A and B) or `[r...]` (A alone, B empty), each r
// decoded as the API decodes a NodeSelectorRequirement, then validated as admission validates it
// (ValidateNodeSelectorRequirement); the valid ones become scheduling::Requirements. The set
// algebra the solver trusts must hold for whatever survives:
//   - A's API form converts back to A;
//   - the bool and the Status forms of Compatible and Intersects agree;
//   - a value is in the intersection of two requirements exactly when it is in both, and the
//     allocation-free emptiness test agrees with the intersection it stands for;
//   - a requirement's Any() (the value a node gets as its label) is in the set.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/codec_common.h"
#include "fuzz_check.h"
#include "scheduling/requirement.h"
#include "scheduling/requirements.h"

namespace {

using nodesmith::api::Json;
using nodesmith::fuzz::Fail;
using nodesmith::scheduling::Requirement;
using nodesmith::scheduling::Requirements;

// The valid requirements of `list` (a JSON array of objects); anything else is dropped, as the
// API server would refuse it.
Requirements Decode(const Json& list) {
  std::vector<Requirement> out;
  if (!list.is_array()) return Requirements();
  for (const Json& item : list) {
    nodesmith::api::NodeSelectorRequirement r;
    auto decoded = nodesmith::api::DecodeDocument(
        item, [&](const nodesmith::api::Reader& reader) { nodesmith::api::DecodeNodeSelectorRequirement(reader, &r); });
    if (!decoded.ok()) continue;
    auto requirement = Requirement::FromNodeSelectorRequirement(r);
    if (requirement.ok()) out.push_back(*requirement);
  }
  return Requirements(std::move(out));
}

// Values worth asking each set about: every value either names, each one's Any(), and the
// integers at and beside the bounds.
std::vector<std::string> Probes(const Requirement& a, const Requirement& b) {
  std::vector<std::string> probes = {"", "0", "1", "-1"};
  for (const Requirement* r : {&a, &b}) {
    probes.insert(probes.end(), r->Values().begin(), r->Values().end());
    probes.push_back(r->Any());
    for (auto bound : {r->lower_bound(), r->upper_bound()}) {
      if (!bound) continue;
      probes.push_back(std::to_string(*bound));
      if (*bound > INT64_MIN) probes.push_back(std::to_string(*bound - 1));
      if (*bound < INT64_MAX) probes.push_back(std::to_string(*bound + 1));
    }
  }
  return probes;
}

void CheckPair(const Requirement& a, const Requirement& b) {
  const Requirement both = a.Intersection(b);
  for (const std::string& v : Probes(a, b)) {
    if (both.Has(v) != (a.Has(v) && b.Has(v)))
      Fail("the intersection disagrees with its operands", a.String() + " ∩ " + b.String() + " at \"" + v + "\"");
  }
  if (a.IntersectionIsEmpty(b) != (both.Len() == 0))
    Fail("IntersectionIsEmpty disagrees with Intersection", a.String() + " ∩ " + b.String());
  Requirement in_place = a;
  in_place.IntersectWith(b);
  if (!(in_place == both)) Fail("IntersectWith differs from Intersection", a.String() + " ∩ " + b.String());
}

void CheckOne(const Requirement& r) {
  const std::string any = r.Any();
  if (!any.empty() && !r.Has(any)) Fail("Any() is not in the set", r.String() + ": " + any);
  if (r.Len() < 0) Fail("a negative Len()", r.String());
}

void Check(const Requirements& a, const Requirements& b) {
  auto back = Requirements::FromNodeSelectorRequirements(a.ToNodeSelectorRequirements());
  if (!(back == a)) Fail("the API form does not convert back", a.String() + " -> " + back.String());
  if (a.IsCompatible(b) != a.Compatible(b).ok()) Fail("IsCompatible disagrees with Compatible", a.String() + " / " + b.String());
  if (a.IntersectsWith(b) != a.Intersects(b).ok()) Fail("IntersectsWith disagrees with Intersects", a.String() + " / " + b.String());
  for (const Requirement& r : a) {
    CheckOne(r);
    if (const Requirement* other = b.Find(r.key())) CheckPair(r, *other);
  }
  (void)a.Labels();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_array()) return 0;
  Requirements a, b;
  if (!doc.empty() && doc[0].is_array()) {
    a = Decode(doc[0]);
    if (doc.size() > 1) b = Decode(doc[1]);
  } else {
    a = Decode(doc);
  }
  Check(a, b);
  Check(b, a);
  return 0;
}
