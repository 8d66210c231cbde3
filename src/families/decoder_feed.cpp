#include "families/decoder_feed.hpp"

#include <utility>
#include <vector>

namespace neurarch::families {
namespace decoder_feed_impl {
namespace {

// The open feeds, innermost last; one graph is built on one thread.
thread_local std::vector<std::pair<const graph::GraphBuilder*, DecoderFeed>> open_feeds;

}  // namespace
}  // namespace decoder_feed_impl
using namespace decoder_feed_impl;

FeedDecoder::FeedDecoder(const graph::GraphBuilder& b, DecoderFeed feed) : b_(b) {
  open_feeds.emplace_back(&b, std::move(feed));
}

FeedDecoder::~FeedDecoder() {
  for (auto it = open_feeds.rbegin(); it != open_feeds.rend(); ++it)
    if (it->first == &b_) {
      open_feeds.erase(std::next(it).base());
      return;
    }
}

const DecoderFeed* decoder_feed(const graph::GraphBuilder& b) {
  for (auto it = open_feeds.rbegin(); it != open_feeds.rend(); ++it)
    if (it->first == &b) return &it->second;
  return nullptr;
}

}  // namespace neurarch::families
