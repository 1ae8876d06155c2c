#include "core/http_header.h"

#include <gtest/gtest.h>

namespace nodesmith::core {
namespace {

TEST(HttpHeaderTest, AFieldIsNamedInLowerCaseAndItsValueTrimmed) {
  HttpHeaderField f;
  ASSERT_TRUE(ParseHttpHeaderLine("X-Amzn-RequestId: \t 4c5e-77 \r\n", &f));
  EXPECT_EQ(f.name, "x-amzn-requestid");
  EXPECT_EQ(f.value, "4c5e-77");
  // A value may hold colons of its own (a Date, an URL) and may be empty.
  ASSERT_TRUE(ParseHttpHeaderLine("Date: Tue, 01 Dec 2026 21:40:00 GMT\r\n", &f));
  EXPECT_EQ(f.value, "Tue, 01 Dec 2026 21:40:00 GMT");
  ASSERT_TRUE(ParseHttpHeaderLine("Audit-Id:\r\n", &f));
  EXPECT_EQ(f.name, "audit-id");
  EXPECT_EQ(f.value, "");
}

TEST(HttpHeaderTest, TheStatusLineAndTheBlankLineAreNoFields) {
  HttpHeaderField f;
  EXPECT_FALSE(ParseHttpHeaderLine("HTTP/1.1 100 Continue\r\n", &f));
  EXPECT_FALSE(ParseHttpHeaderLine("HTTP/2 200\r\n", &f));
  EXPECT_FALSE(ParseHttpHeaderLine("\r\n", &f));
  EXPECT_FALSE(ParseHttpHeaderLine(": no name\r\n", &f));
  EXPECT_TRUE(IsHttpStatusLine("HTTP/1.1 503 Service Unavailable\r\n"));
  EXPECT_FALSE(IsHttpStatusLine("Content-Type: application/json\r\n"));
}

}  // namespace
}  // namespace nodesmith::core
