#include "core/utf8.h"

#include <gtest/gtest.h>

namespace nodesmith::core {
namespace {

TEST(IsValidUtf8, AcceptsTextInAnyScript) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("inflate"));
  EXPECT_TRUE(IsValidUtf8("节点池 ü €"));
  EXPECT_TRUE(IsValidUtf8("\xF0\x9F\x9A\x80"));  // U+1F680
}

TEST(IsValidUtf8, RefusesBytesThatAreNotText) {
  EXPECT_FALSE(IsValidUtf8("\x80"));              // a lone continuation byte
  EXPECT_FALSE(IsValidUtf8("\x85"));              // what YAML's "\N" decodes to in Latin-1 terms
  EXPECT_FALSE(IsValidUtf8("ab\xC3"));            // truncated
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));          // overlong
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // a surrogate
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xFF"));
}

}  // namespace
}  // namespace nodesmith::core
