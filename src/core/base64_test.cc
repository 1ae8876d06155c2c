#include "core/base64.h"

#include <gtest/gtest.h>

#include <vector>

namespace nodesmith::core {
namespace {

TEST(Base64Test, EncodesTheRfc4648Vectors) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64Encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode(std::string("\xff\x00\xfe", 3)), "/wD+");
}

TEST(Base64Test, DecodesWhatItEncodesAndRefusesWhatIsNotBase64) {
  for (const std::string& s : std::vector<std::string>{"", "f", "fo", "foo", "foob", "fooba", "foobar", std::string("\xff\x00\xfe", 3)})
    EXPECT_EQ(Base64Decode(Base64Encode(s)), s);
  EXPECT_FALSE(Base64Decode("Zg="));    // not a multiple of 4
  EXPECT_FALSE(Base64Decode("Z*=="));   // not the alphabet
  EXPECT_FALSE(Base64Decode("Zg==Zg=="));  // padding before the end
}

}  // namespace
}  // namespace nodesmith::core
