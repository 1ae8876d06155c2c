// Quantity is pinned to upstream k8s.io/apimachinery resource.Quantity by the shared corpus
// (one test per row) and by hand-written cases for arithmetic, comparison and hostile inputs.
#include "api/quantity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

namespace nodesmith::api {
namespace {

// One row of data/k8s/quantity_cases*.tsv.
struct CorpusRow {
  std::string file;
  int line = 0;
  std::string input;
  bool valid = false;
  std::string format;
  std::string exact_value;
  std::string canonical;
  std::string value_ceil;        // an integer, or "overflow"
  std::string milli_value_ceil;  // an integer, or "overflow"
};

// Names the row in test listings instead of dumping its bytes.
void PrintTo(const CorpusRow& row, std::ostream* os) {
  *os << row.file << ":" << row.line << " \"" << row.input << "\"";
}

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> cols;
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    cols.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  return cols;
}

std::vector<CorpusRow> LoadCorpus(const std::string& name) {
  std::vector<CorpusRow> rows;
  std::ifstream in(std::string(NODESMITH_SHARED_DATA) + "/k8s/" + name);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line_no == 1) continue;  // header
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::vector<std::string> c = SplitTabs(line);
    CorpusRow r;
    r.file = name;
    r.line = line_no;
    r.input = c[0];
    r.valid = c.size() > 1 && c[1] == "valid";
    if (c.size() >= 7) {
      r.format = c[2];
      r.exact_value = c[3];
      r.canonical = c[4];
      r.value_ceil = c[5];
      r.milli_value_ceil = c[6];
    }
    rows.push_back(r);
  }
  return rows;
}

// "line12_100p035Ki": readable and unique (the input alone repeats across sources).
std::string RowName(const ::testing::TestParamInfo<CorpusRow>& info) {
  std::string name = "line" + std::to_string(info.param.line) + "_";
  for (char ch : info.param.input) {
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')) {
      name += ch;
    } else if (ch == '.') {
      name += "p";
    } else if (ch == '-') {
      name += "minus";
    } else if (ch == '+') {
      name += "plus";
    } else if (ch == ' ') {
      name += "space";
    } else {
      name += "x";
    }
  }
  return name;
}

class QuantityCorpus : public ::testing::TestWithParam<CorpusRow> {};

TEST_P(QuantityCorpus, MatchesUpstream) {
  const CorpusRow& row = GetParam();
  SCOPED_TRACE(row.file + ":" + std::to_string(row.line) + " input \"" + row.input + "\"");
  core::Result<Quantity> q = Quantity::Parse(row.input);
  if (!row.valid) {
    EXPECT_FALSE(q.ok()) << "parsed as " << q->String();
    if (!q.ok()) {
      EXPECT_EQ(q.status().code(), core::StatusCode::kInvalidArgument);
    }
    return;
  }
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(QuantityFormatName(q->format()), row.format);
  EXPECT_EQ(q->String(), row.canonical);
  EXPECT_EQ(q->DecimalString(), row.exact_value);
  if (row.value_ceil == "overflow") {
    EXPECT_TRUE(q->ValueOverflows()) << q->Value();
  } else {
    EXPECT_FALSE(q->ValueOverflows());
    EXPECT_EQ(q->Value(), std::stoll(row.value_ceil));
  }
  if (row.milli_value_ceil == "overflow") {
    EXPECT_TRUE(q->MilliValueOverflows()) << q->MilliValue();
  } else {
    EXPECT_FALSE(q->MilliValueOverflows());
    EXPECT_EQ(q->MilliValue(), std::stoll(row.milli_value_ceil));
  }
  // The canonical string parses back to the same value.
  core::Result<Quantity> again = Quantity::Parse(q->String());
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->Cmp(*q), 0) << again->String();
}

INSTANTIATE_TEST_SUITE_P(Full, QuantityCorpus,
                         ::testing::ValuesIn(LoadCorpus("quantity_cases_full.tsv")), RowName);
INSTANTIATE_TEST_SUITE_P(Core, QuantityCorpus,
                         ::testing::ValuesIn(LoadCorpus("quantity_cases.tsv")), RowName);

TEST(QuantityCorpusFiles, AreReadable) {
  EXPECT_GT(LoadCorpus("quantity_cases_full.tsv").size(), 150u);
  EXPECT_GT(LoadCorpus("quantity_cases.tsv").size(), 50u);
}

// --- Parsing corners upstream's scanner produces -------------------------------------------

TEST(QuantityParse, EmptyIsAnErrorNamingTheGrammar) {
  core::Result<Quantity> q = Quantity::Parse("");
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("quantities must match the regular expression"),
            std::string::npos);
}

TEST(QuantityParse, AnExponentIsReadAsAnInt32AsUpstreamReadsIt) {
  // apimachinery parses the exponent as an int64 and keeps its low 32 bits (int32(parsed)), so
  // the API server reads 1e4294967296 as 1e0. An exponent near the int64 limits once overflowed
  // nodesmith's scale arithmetic (found by the quantity fuzz target).
  EXPECT_EQ(Quantity::MustParse("1e4294967296").MilliValue(), 1000);
  EXPECT_EQ(Quantity::MustParse("1e4294967299").MilliValue(), 1'000'000);
  // int32(-9223372036854775807) is 1: .01e1.
  EXPECT_EQ(Quantity::MustParse(".01e-009223372036854775807").MilliValue(), 100);
  EXPECT_EQ(Quantity::MustParse("1e-9223372036854775808").MilliValue(), 1000);
  EXPECT_EQ(Quantity::MustParse("-1e-4294967296").MilliValue(), -1000);  // -1e0
  EXPECT_EQ(Quantity::MustParse("1e9223372036854775807").MilliValue(), 100);  // 2^63-1 is -1
  EXPECT_FALSE(Quantity::Parse("1e9223372036854775808").ok());  // not an int64: bad suffix
  // Within int32 the exponent is what it says; nodesmith's magnitude limit still applies.
  EXPECT_NE(Quantity::Parse("1e2147483647").status().message().find("magnitude too large"),
            std::string::npos);
}

TEST(QuantityParse, ErrorsSayWhichPartIsWrong) {
  EXPECT_NE(Quantity::Parse("1x").status().message().find("quantities must match"),
            std::string::npos);
  EXPECT_NE(Quantity::Parse("1mi").status().message().find("unable to parse quantity's suffix"),
            std::string::npos);
  EXPECT_NE(Quantity::Parse("Ei").status().message().find("unable to parse numeric part"),
            std::string::npos);
}

TEST(QuantityParse, ANumberNeedsADigitAsTheGrammarSays) {
  // <quantity> ::= <signedNumber><suffix>, and <number> has digits before or after its point.
  // Upstream's scanner reads a missing number as 0; the API server's quantity pattern refuses it.
  for (const char* bad : {"e1", "E1", ".", "+", "-", "-.", "+.e3", "m", "Ki", "Ti", "e-9", "Pi",
                          "Ei", "e-10", "-.Ei"}) {
    core::Result<Quantity> q = Quantity::Parse(bad);
    ASSERT_FALSE(q.ok()) << bad;
    EXPECT_NE(q.status().message().find("unable to parse numeric part"), std::string::npos) << bad;
  }
  for (const char* bad : {"e", "1e", "1e+", "1E-", "1Ki5", "1Ki2", "1.5.5", "1.2.3", "1e1.5",
                          "0x10", "1_000", "１"}) {
    EXPECT_FALSE(Quantity::Parse(bad).ok()) << bad;
  }
  EXPECT_FALSE(Quantity::Parse(std::string_view("1\0", 2)).ok());
  EXPECT_FALSE(Quantity::Parse(std::string_view("1k\0", 3)).ok());
  // A digit on either side of the point is enough, and "E" alone is the exa suffix.
  for (const char* zero : {"-0", "+0.000", "0.", ".0", "-0e5"}) {
    core::Result<Quantity> q = Quantity::Parse(zero);
    ASSERT_TRUE(q.ok()) << zero << ": " << q.status().message();
    EXPECT_TRUE(q->IsZero()) << zero;
  }
  EXPECT_EQ(Quantity::MustParse(".5").MilliValue(), 500);
  EXPECT_EQ(Quantity::MustParse("5.").Value(), 5);
  EXPECT_EQ(Quantity::MustParse("1e3").Value(), 1000);
  EXPECT_EQ(Quantity::MustParse("1E3").Value(), 1000);
  EXPECT_EQ(Quantity::MustParse("1E").Value(), 1000000000000000000);
  EXPECT_EQ(Quantity::MustParse("1E").format(), QuantityFormat::kDecimalSI);
}

TEST(QuantityParse, KeepsTheSpellingUpstreamCachesAsCanonical) {
  EXPECT_EQ(Quantity::MustParse("007").String(), "007");
  EXPECT_EQ(Quantity::MustParse("+1").String(), "+1");
  EXPECT_EQ(Quantity::MustParse("1e03").String(), "1e03");
  EXPECT_EQ(Quantity::MustParse("-1.500k").String(), "-1.500k");
  EXPECT_EQ(Quantity::MustParse("+7Ki").String(), "+7Ki");
  // Not canonical by upstream's test, so re-emitted.
  EXPECT_EQ(Quantity::MustParse("+8Ki").String(), "8Ki");
  EXPECT_EQ(Quantity::MustParse("-1.5k").String(), "-1500");
  EXPECT_EQ(Quantity::MustParse("1000").String(), "1k");
  EXPECT_EQ(Quantity::MustParse("-1.5").String(), "-1500m");
}

TEST(QuantityParse, NegativeValuesRoundAwayFromZero) {
  Quantity q = Quantity::MustParse("-1.5");
  EXPECT_EQ(q.Sign(), -1);
  EXPECT_EQ(q.Value(), -2);
  EXPECT_EQ(q.MilliValue(), -1500);
  EXPECT_EQ(Quantity::MustParse("-0.9n").DecimalString(), "-0.000000001");
  EXPECT_EQ(Quantity::MustParse("-1.1E-9").String(), "-2e-9");
  EXPECT_EQ(Quantity::MustParse("-0.1m").MilliValue(), -1);
}

TEST(QuantityParse, HugeAndTinyExponentsAreBounded) {
  core::Result<Quantity> huge = Quantity::Parse("1e400");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("too large"), std::string::npos);
  EXPECT_FALSE(Quantity::Parse("1e30").ok());
  EXPECT_TRUE(Quantity::Parse("0e400").ok());
  EXPECT_TRUE(Quantity::MustParse("0e400").IsZero());
  // Upstream rounds any positive amount up to one nano-unit.
  EXPECT_EQ(Quantity::MustParse("1e-400").String(), "1e-9");
  EXPECT_EQ(Quantity::MustParse("1e28").String(), "10e27");
  EXPECT_EQ(Quantity::MustParse("1000E").String(), "1e21");
  // Binary suffixes saturate at 2^63-1 instead.
  EXPECT_EQ(Quantity::MustParse("99999999999999999999999999999999999999999Ei").Value(),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(Quantity::MustParse("-9Ei").Value(), -std::numeric_limits<int64_t>::max());
}

// Hostile sizes are parsed or refused, never hang or crash (ctest's timeout guards a hang; speed
// itself belongs in bench/, not in a timed test).
TEST(QuantityParse, TenMegabyteInputsAreParsedOrRefusedWithAShortMessage) {
  const std::string digits(10 * 1000 * 1000, '9');
  EXPECT_FALSE(Quantity::Parse(digits).ok());
  EXPECT_EQ(Quantity::MustParse(digits + "Ki").Value(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(Quantity::MustParse("0." + digits).String(), "1");  // 0.999...9 rounds up to 1
  EXPECT_EQ(Quantity::MustParse("0." + std::string(digits.size(), '0') + "1").String(), "1n");
  EXPECT_EQ(Quantity::MustParse(digits + "e-10000000").String(), "1");
  // Ten nines before the point, then millions after: rounds up at the nano digit.
  EXPECT_EQ(Quantity::MustParse(digits + "e-9999990").String(), "10e9");
  EXPECT_EQ(Quantity::MustParse(std::string(digits.size(), '0') + "5").String(), "5");
  EXPECT_FALSE(Quantity::Parse("1" + std::string(digits.size(), 'k')).ok());
  core::Result<Quantity> bad = Quantity::Parse(digits + "x");
  ASSERT_FALSE(bad.ok());
  EXPECT_LT(bad.status().message().size(), 300u);  // the message quotes an excerpt
}

TEST(QuantityParse, FractionalBinaryRoundsUpToNanos) {
  // 0.1Ki = 102.4: exact; 1e-10Ki = 1.024e-7 is 103 nanos rounded up.
  EXPECT_EQ(Quantity::MustParse("0.1Ki").DecimalString(), "102.4");
  EXPECT_EQ(Quantity::MustParse("0.0000000001Ki").DecimalString(), "0.000000103");
  EXPECT_EQ(Quantity::MustParse("1.5Gi").String(), "1536Mi");
  EXPECT_EQ(Quantity::MustParse("1.5Gi").format(), QuantityFormat::kBinarySI);
}

// --- Construction, formatting and conversion -------------------------------------------------

TEST(QuantityFormatting, FromIntAndFromMilliPrintCanonically) {
  EXPECT_EQ(Quantity::FromInt(1).String(), "1");
  EXPECT_EQ(Quantity::FromInt(1000).String(), "1k");
  EXPECT_EQ(Quantity::FromInt(1234000).String(), "1234k");
  EXPECT_EQ(Quantity::FromInt(1024, QuantityFormat::kBinarySI).String(), "1Ki");
  EXPECT_EQ(Quantity::FromInt(1000000, QuantityFormat::kDecimalExponent).String(), "1e6");
  EXPECT_EQ(Quantity::FromInt(1024 * 1024, QuantityFormat::kBinarySI).String(), "1Mi");
  EXPECT_EQ(Quantity::FromMilli(1).String(), "1m");
  EXPECT_EQ(Quantity::FromMilli(1000).String(), "1");
  EXPECT_EQ(Quantity::FromMilli(1234000).String(), "1234");
  EXPECT_EQ(Quantity::FromMilli(1024, QuantityFormat::kBinarySI).String(), "1024m");
  EXPECT_EQ(Quantity::FromMilli(1000000, QuantityFormat::kDecimalExponent).String(), "1e3");
  EXPECT_EQ(Quantity::FromMilli(1024 * 1024, QuantityFormat::kBinarySI).String(), "1048576m");
  EXPECT_EQ(Quantity::FromMilli(-500).String(), "-500m");
  EXPECT_EQ(Quantity::FromInt(std::numeric_limits<int64_t>::min()).Value(),
            std::numeric_limits<int64_t>::min());
  EXPECT_FALSE(Quantity::FromInt(std::numeric_limits<int64_t>::min()).ValueOverflows());
  EXPECT_EQ(Quantity().String(), "0");
}

TEST(QuantityFormatting, AsDoubleApproximatesTheValue) {
  EXPECT_DOUBLE_EQ(Quantity::MustParse("1.5").AsDouble(), 1.5);
  EXPECT_DOUBLE_EQ(Quantity::MustParse("1Gi").AsDouble(), 1073741824.0);
  EXPECT_DOUBLE_EQ(Quantity::MustParse("-250m").AsDouble(), -0.25);
}

TEST(QuantityFormatting, ValueSaturatesWhenItOverflows) {
  Quantity big = Quantity::MustParse("12E");
  EXPECT_TRUE(big.ValueOverflows());
  EXPECT_EQ(big.Value(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ((-big).Value(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(big.MilliValue(), std::numeric_limits<int64_t>::max());
}

// --- Arithmetic and comparison ----------------------------------------------------------------

TEST(QuantityArithmetic, AddsExactlyAndPrintsCanonically) {
  Quantity a = Quantity::MustParse("1Gi") + Quantity::MustParse("512Mi");
  EXPECT_EQ(a.String(), "1536Mi");
  EXPECT_EQ((Quantity::MustParse("100m") + Quantity::MustParse("1.9")).String(), "2");
  EXPECT_EQ((Quantity::MustParse("0.1") + Quantity::MustParse("0.2")).DecimalString(), "0.3");
  EXPECT_EQ((Quantity::MustParse("1n") + Quantity::MustParse("1E")).DecimalString(),
            "1000000000000000000.000000001");
  // The sum keeps the left format; "1." loses its kept spelling.
  EXPECT_EQ((Quantity::MustParse("1.") + Quantity()).String(), "1");
  EXPECT_EQ((Quantity::MustParse("1k") + Quantity::MustParse("1Ki")).String(), "2024");
}

TEST(QuantityArithmetic, ZeroTakesTheOtherOperandsFormat) {
  const Quantity zero = Quantity::MustParse("0");
  for (const char* s : {"100m", "1Gi"}) {
    const Quantity v = Quantity::MustParse(s);
    EXPECT_EQ((v + zero).String(), s);
    EXPECT_EQ((zero + v).String(), s);
    EXPECT_EQ((v - zero).String(), s);
    EXPECT_EQ((zero - v).String(), (-v).String());
  }
  EXPECT_EQ((zero - Quantity::MustParse("1Gi")).String(), "-1Gi");
  EXPECT_EQ((zero + Quantity::MustParse("1Ki")).format(), QuantityFormat::kBinarySI);
}

TEST(QuantityArithmetic, SubtractsIntoNegatives) {
  Quantity q = Quantity::MustParse("500m");
  q -= Quantity::MustParse("2");
  EXPECT_EQ(q.String(), "-1500m");
  EXPECT_EQ(q.Sign(), -1);
  q += Quantity::MustParse("1.5");
  EXPECT_TRUE(q.IsZero());
  EXPECT_EQ(q.String(), "0");
}

TEST(QuantityArithmetic, MultipliesByIntegers) {
  EXPECT_EQ((Quantity::MustParse("250m") * 4).String(), "1");
  EXPECT_EQ((Quantity::MustParse("1Gi") * 3).String(), "3Gi");
  EXPECT_EQ((Quantity::MustParse("1Gi") * 1024).String(), "1Ti");
  EXPECT_EQ((Quantity::MustParse("1.5") * -2).String(), "-3");
  EXPECT_TRUE((Quantity::MustParse("7") * 0).IsZero());
  EXPECT_EQ((Quantity::MustParse("4Ei") * 1024).String(), "4096Ei");  // no suffix past Ei
}

TEST(QuantityArithmetic, SaturatesInsteadOfWrapping) {
  const Quantity big = Quantity::MustParse("100000E");  // 1e23
  const Quantity product = big * std::numeric_limits<int64_t>::max();
  EXPECT_EQ(product.Sign(), 1);
  EXPECT_GT(product, big);
  EXPECT_EQ((product + product).Cmp(product), 0);
  EXPECT_EQ((-product - product).Cmp(-product), 0);
  EXPECT_EQ((big * std::numeric_limits<int64_t>::min()).Sign(), -1);
}

TEST(QuantityCompare, ComparesValuesNotSpellings) {
  EXPECT_EQ(Quantity::MustParse("1Gi"), Quantity::MustParse("1024Mi"));
  EXPECT_EQ(Quantity::MustParse("1000m"), Quantity::MustParse("1"));
  EXPECT_EQ(Quantity::MustParse("1."), Quantity::MustParse("1e0"));
  EXPECT_EQ(Quantity::MustParse("100m").Cmp(Quantity::MustParse("50m")), 1);
  EXPECT_EQ(Quantity::MustParse("50m").Cmp(Quantity::MustParse("100m")), -1);
  EXPECT_EQ(Quantity::MustParse("10000T").Cmp(Quantity::MustParse("100Gi")), 1);
  EXPECT_LT(Quantity::MustParse("-1"), Quantity());
  EXPECT_LT(Quantity::MustParse("999999999n"), Quantity::MustParse("1"));
  EXPECT_GT(Quantity::MustParse("1G"), Quantity::MustParse("1Gi") - Quantity::MustParse("74Mi"));
}

}  // namespace
}  // namespace nodesmith::api
