// The Prometheus text exposition format, version 0.0.4, as Prometheus' Go client writes it.
//
// Each family is `# HELP name help`, `# TYPE name type`, then one line per sample. Families are
// sorted by name and series by their label values (taken in label-name order), so the same
// state always gives the same bytes. Label pairs are written sorted by name, with a histogram's
// `le` and a summary's `quantile` last. Numbers are written as Go's strconv.FormatFloat(v, 'g',
// -1, 64) with +Inf, -Inf and NaN spelled as Prometheus spells them.
// All functions are pure and thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "metrics/registry.h"

namespace nodesmith::metrics {

// The Content-Type of a /metrics answer in this format.
inline constexpr std::string_view kTextContentType = "text/plain; version=0.0.4; charset=utf-8";

// 1 -> "1", 0.005 -> "0.005", 1e6 -> "1e+06", 2592000 -> "2.592e+06", 1e-5 -> "1e-05",
// +Inf -> "+Inf", NaN -> "NaN"; -0 -> "0".
std::string FormatFloat(double v);
// A label value inside double quotes: backslash, double quote and newline escaped.
std::string EscapeLabelValue(std::string_view value);
// Help text: backslash and newline escaped.
std::string EscapeHelp(std::string_view help);

// The text of `families` (sorted here; their order on input does not matter).
std::string TextFormat(std::vector<FamilySnapshot> families);
// The text of everything `registry` holds (Gather, then TextFormat).
std::string TextFormat(const Registry& registry);

}  // namespace nodesmith::metrics
