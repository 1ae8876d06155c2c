#include "cli/text_table.h"

#include <gtest/gtest.h>

namespace nodesmith::cli {
namespace {

TEST(TextTable, ColumnsAreAsWideAsTheirWidestCellPlusTwoSpaces) {
  EXPECT_EQ(Table({{"NAME", "CPU"}, {"m5.large", "2"}, {"c5.xlarge", "4"}}),
            "NAME       CPU\n"
            "m5.large   2\n"
            "c5.xlarge  4\n");
}

TEST(TextTable, ShortRowsAreNotPadded) {
  EXPECT_EQ(Table({{"a", "bb", "c"}, {"ddd"}}), "a    bb  c\nddd\n");
}

TEST(TextTable, NoRowsRenderNothing) { EXPECT_EQ(Table({}), ""); }

}  // namespace
}  // namespace nodesmith::cli
