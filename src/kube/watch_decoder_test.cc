#include "kube/watch_decoder.h"

#include <gtest/gtest.h>

#include <vector>

namespace nodesmith::kube {
namespace {

struct Seen {
  std::vector<std::string> types;
  std::vector<std::string> names;
  WatchDecoder::Handler Handler(int stop_after = -1) {
    return [this, stop_after](std::string_view type, const api::JsonView& object) {
      types.emplace_back(type);
      names.emplace_back(object.Find("metadata").Find("name").GetString());
      return stop_after < 0 || static_cast<int>(types.size()) < stop_after;
    };
  }
};

const std::string kTwoEvents =
    R"({"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a","resourceVersion":"5"}}})"
    "\n"
    R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"name":"","resourceVersion":"9"}}})"
    "\n";

TEST(WatchDecoderTest, FramesCutAtEveryByteDecodeTheSame) {
  for (size_t cut = 1; cut < kTwoEvents.size(); ++cut) {
    Seen seen;
    WatchDecoder decoder(seen.Handler());
    ASSERT_TRUE(decoder.Feed(std::string_view(kTwoEvents).substr(0, cut)));
    ASSERT_TRUE(decoder.Feed(std::string_view(kTwoEvents).substr(cut)));
    EXPECT_EQ(seen.types, (std::vector<std::string>{"ADDED", "BOOKMARK"})) << "cut at " << cut;
    EXPECT_EQ(seen.names[0], "a");
    EXPECT_EQ(decoder.buffered(), 0u);
  }
}

TEST(WatchDecoderTest, AnUnfinishedFrameWaitsForItsNewline) {
  Seen seen;
  WatchDecoder decoder(seen.Handler());
  ASSERT_TRUE(decoder.Feed(R"({"type":"DELETED","object":{"metadata":{"name":"b"}}})"));
  EXPECT_TRUE(seen.types.empty());
  ASSERT_TRUE(decoder.Feed("\n"));
  EXPECT_EQ(seen.types, std::vector<std::string>{"DELETED"});
}

TEST(WatchDecoderTest, TheHandlerStopsDecoding) {
  Seen seen;
  WatchDecoder decoder(seen.Handler(/*stop_after=*/1));
  EXPECT_FALSE(decoder.Feed(kTwoEvents));
  EXPECT_EQ(seen.types.size(), 1u);
  EXPECT_TRUE(decoder.error().ok());
}

TEST(WatchDecoderTest, AMalformedFrameIsAnErrorNotACrash) {
  const std::vector<std::string> bad_frames = {
      "not json\n", "{\"object\":{}}\n", "{\"type\":3,\"object\":{}}\n",
      "{\"type\":\"ADDED\",\"object\":\"\xff\xfe\"}\n"};
  for (const std::string& bad : bad_frames) {
    Seen seen;
    WatchDecoder decoder(seen.Handler());
    EXPECT_FALSE(decoder.Feed(bad)) << bad;
    EXPECT_FALSE(decoder.error().ok());
    EXPECT_NE(decoder.error().message().find("malformed watch event"), std::string::npos);
    EXPECT_FALSE(decoder.Feed(kTwoEvents));  // stays failed
  }
}

TEST(WatchDecoderTest, BlankLinesBetweenFramesAreIgnored) {
  Seen seen;
  WatchDecoder decoder(seen.Handler());
  ASSERT_TRUE(decoder.Feed("\n\r\n" + kTwoEvents + "\n"));
  EXPECT_EQ(seen.types.size(), 2u);
}

}  // namespace
}  // namespace nodesmith::kube
