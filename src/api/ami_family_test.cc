#include "api/ami_family.h"

#include <gtest/gtest.h>

namespace nodesmith::api {
namespace {

TEST(AmiFamily, AnAliasImpliesItsFamilyWhateverTheVersion) {
  EXPECT_EQ(AmiFamilyOfAlias("al2023@latest"), "AL2023");
  EXPECT_EQ(AmiFamilyOfAlias("bottlerocket@v1.20.3"), "Bottlerocket");
  EXPECT_EQ(AmiFamilyOfAlias("windows2022"), "Windows2022");
  EXPECT_EQ(AmiFamilyOfAlias("ubuntu@latest"), "");
}

TEST(AmiFamily, AFamilyWithAnAliasMapsToItsLatestAlias) {
  EXPECT_EQ(LatestAliasOfAmiFamily("AL2"), "al2@latest");
  EXPECT_EQ(LatestAliasOfAmiFamily("Windows2025"), "windows2025@latest");
  EXPECT_EQ(LatestAliasOfAmiFamily("Custom"), "");
  EXPECT_EQ(LatestAliasOfAmiFamily("al2"), "");
}

TEST(AmiFamily, EveryLatestAliasLeadsBackToItsFamily) {
  for (const char* family : {"AL2", "AL2023", "Bottlerocket", "Windows2019", "Windows2022", "Windows2025"}) {
    EXPECT_EQ(AmiFamilyOfAlias(LatestAliasOfAmiFamily(family)), family) << family;
  }
}

}  // namespace
}  // namespace nodesmith::api
