// SourceRef::Describe names where an object came from in error messages.
#include "api/meta.h"

#include <gtest/gtest.h>

namespace nodesmith::api {
namespace {

TEST(SourceRef, DescribesFileDocumentKindAndName) {
  EXPECT_EQ((SourceRef{"pools.yaml", 2, "NodePool", "default"}).Describe(),
            "pools.yaml: document 2 (NodePool default)");
}

TEST(SourceRef, LeavesOutTheEmptyParts) {
  EXPECT_EQ((SourceRef{"pools.yaml", 2, "NodePool", ""}).Describe(),
            "pools.yaml: document 2 (NodePool)");
  EXPECT_EQ((SourceRef{"pools.yaml", 2, "", "default"}).Describe(),
            "pools.yaml: document 2 (default)");
  EXPECT_EQ((SourceRef{"<stdin>", 1, "", ""}).Describe(), "<stdin>: document 1");
  EXPECT_EQ((SourceRef{"pods.json", 0, "Pod", "web"}).Describe(), "pods.json (Pod web)");
}

TEST(ObjectMeta, KeyIncludesTheNamespaceWhenThereIsOne) {
  ObjectMeta m;
  m.name = "web-0";
  EXPECT_EQ(m.Key(), "web-0");
  m.namespace_ = "default";
  EXPECT_EQ(m.Key(), "default/web-0");
}

TEST(ObjectMeta, SetAnnotationSaysWhetherItChangedTheObject) {
  ObjectMeta m;
  EXPECT_TRUE(SetAnnotation(m, "k", "a"));
  EXPECT_FALSE(SetAnnotation(m, "k", "a"));
  EXPECT_TRUE(SetAnnotation(m, "k", "b"));
  EXPECT_EQ(m.annotations.at("k"), "b");
}

}  // namespace
}  // namespace nodesmith::api
