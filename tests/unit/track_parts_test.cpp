// The change tracker's parts on their own: LFS pointers, key-level JSON diff, unified diff,
// tokenizer facts, the progress bar.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "track/json_diff.hpp"
#include "track/lfs.hpp"
#include "track/progress_bar.hpp"
#include "track/text_diff.hpp"
#include "track/tokenizer_facts.hpp"

using namespace neurarch;
using nlohmann::json;

TEST(TrackLfs, ParsesPointersAndNamesTheBadLine) {
  const std::string oid = "sha256:" + std::string(64, 'a');
  const auto p = track::parse_lfs_pointer("version https://git-lfs.github.com/spec/v1\noid " + oid + "\nsize 12345\n", "f");
  EXPECT_EQ(p.oid, oid);
  EXPECT_EQ(p.size, 12345);
  EXPECT_TRUE(track::looks_like_lfs_pointer("version https://git-lfs.github.com/spec/v1\n"));
  EXPECT_FALSE(track::looks_like_lfs_pointer("{\"a\": 1}"));

  auto error_of = [](const std::string& text) {
    try {
      track::parse_lfs_pointer(text, "model.bin@abc");
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
      return std::string(e.what());
    }
    return std::string("parsed");
  };
  const std::string v = "version https://git-lfs.github.com/spec/v1\n";
  EXPECT_EQ(error_of(v + "oid md5:12\nsize 1\n"), "model.bin@abc:2: not a valid Git LFS pointer: oid must be sha256: and 64 lowercase hex digits");
  EXPECT_EQ(error_of(v + "oid " + oid + "\nsize -4\n"), "model.bin@abc:3: not a valid Git LFS pointer: size must be a non-negative integer");
  EXPECT_EQ(error_of(v + "size 1\noid " + oid + "\n"), "model.bin@abc:3: not a valid Git LFS pointer: keys must be sorted and unique");
  EXPECT_EQ(error_of(v + "oid " + oid + "\n"), "model.bin@abc:2: not a valid Git LFS pointer: no size line");
  EXPECT_EQ(error_of(v + "oid " + oid + "\nsize 1"), "model.bin@abc:1: not a valid Git LFS pointer: the last line does not end with a newline");
  EXPECT_EQ(error_of(v + "oid " + oid + "\nsize 1\n" + std::string(2000, 'x') + "\n").find("model.bin@abc:1: not a valid Git LFS pointer: "), 0u);
}

TEST(TrackJsonDiff, NamesNestedKeysByPath) {
  const json a = {{"hidden_size", 64}, {"rope_scaling", {{"type", "linear"}, {"factor", 2.0}}}, {"old", true}, {"list", {1, 2}}};
  const json b = {{"hidden_size", 64}, {"rope_scaling", {{"type", "linear"}, {"factor", 4.0}, {"original", 128}}}, {"list", {1, 3}}, {"new", nullptr}};
  const auto d = track::json_key_diff(a, b);
  ASSERT_EQ(d.size(), 5u);
  EXPECT_EQ(d[0].path, "list");
  EXPECT_EQ(d[0].kind, "key-changed");
  EXPECT_EQ(d[1].path, "new");
  EXPECT_EQ(d[1].kind, "key-added");
  EXPECT_EQ(d[2].path, "old");
  EXPECT_EQ(d[2].kind, "key-removed");
  EXPECT_EQ(d[3].path, "rope_scaling.factor");
  EXPECT_EQ(d[3].before, 2.0);
  EXPECT_EQ(d[3].after, 4.0);
  EXPECT_EQ(d[4].path, "rope_scaling.original");
  EXPECT_EQ(d[4].kind, "key-added");
  EXPECT_TRUE(track::json_key_diff(a, a).empty());
}

TEST(TrackTextDiff, WritesUnifiedHunks) {
  const std::string a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
  const std::string b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\neleven\n";
  // Expected texts are what GNU diff -u prints for the same inputs.
  EXPECT_EQ(track::unified_diff(a, b, "t.jinja"),
            "--- a/t.jinja\n+++ b/t.jinja\n"
            "@@ -2,9 +2,10 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n 9\n 10\n+eleven\n");
  std::string c, d;
  for (int i = 1; i <= 20; ++i) {
    c += std::to_string(i) + "\n";
    d += (i == 2 ? std::string("two") : i == 19 ? std::string("nineteen") : std::to_string(i)) + "\n";
  }
  EXPECT_EQ(track::unified_diff(c, d, "n"),
            "--- a/n\n+++ b/n\n@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n"
            "@@ -16,5 +16,5 @@\n 16\n 17\n 18\n-19\n+nineteen\n 20\n");
  EXPECT_EQ(track::unified_diff("", "x\n", "n"), "--- a/n\n+++ b/n\n@@ -0,0 +1,1 @@\n+x\n");
  EXPECT_EQ(track::unified_diff("same\n", "same\n", "n"), "--- a/n\n+++ b/n\n");
  std::string big;
  for (int i = 0; i < 3000; ++i) big += "line\n";
  EXPECT_NE(track::unified_diff(big, "x\n", "n").find("too long to diff line by line"), std::string::npos);
}

TEST(TrackTokenizer, ReadsVocabularySpecialTokensAndRoles) {
  std::map<std::string, std::string> files;
  files["tokenizer.json"] = json{{"added_tokens", {{{"id", 0}, {"content", "<pad>"}, {"special", true}},
                                                   {{"id", 7}, {"content", "<tool>"}, {"special", true}}}},
                                 {"model", {{"type", "Unigram"},
                                            {"vocab", json::array({json::array({"<pad>", 0.0}), json::array({"</s>", 0.0}),
                                                                   json::array({"a", -1.0})})}}}}
                                .dump();
  files["tokenizer_config.json"] = json{{"eos_token", {{"content", "</s>"}}}, {"pad_token", "<pad>"}}.dump();
  files["special_tokens_map.json"] = json{{"eos_token", "</ignored>"}, {"unk_token", "<unk>"}}.dump();
  const auto f = track::tokenizer_facts(files);
  EXPECT_TRUE(f.errors.empty());
  EXPECT_EQ(f.vocab_size, 4);  // ids 0, 1, 2 and the added 7
  EXPECT_EQ(f.special_tokens, (std::map<std::string, std::int64_t>{{"</s>", 1}, {"<pad>", 0}, {"<tool>", 7}}));
  EXPECT_EQ(f.roles.at("eos").token, "</s>");  // tokenizer_config.json wins over special_tokens_map.json
  EXPECT_EQ(f.roles.at("eos").id, 1);
  EXPECT_EQ(f.roles.at("unk").token, "<unk>");
  EXPECT_FALSE(f.roles.at("unk").id.has_value());  // not in the vocabulary

  files["tokenizer.json"] = "{\"model\": ";
  const auto broken = track::tokenizer_facts(files);
  ASSERT_EQ(broken.errors.size(), 1u);
  EXPECT_EQ(broken.errors[0], "tokenizer.json: byte 11: does not parse as JSON");
  // Good syntax that no double holds: nlohmann throws out_of_range, which escaped the reader (and ended a
  // `track` run) before.
  files["tokenizer.json"] = R"({"model": {"vocab": {"a": 1e400}}})";
  const auto huge = track::tokenizer_facts(files);
  ASSERT_EQ(huge.errors.size(), 1u);
  EXPECT_EQ(huge.errors[0], "tokenizer.json: holds a number out of range");

  // Well-formed JSON of the wrong shapes (found by the track fuzzer: a string "model" made json::value throw):
  // nothing is read from them, and nothing escapes.
  files["tokenizer.json"] = R"({"model": "bpe", "added_tokens": [{"id": 3, "content": 5}, {"id": 4, "content": "x",
                                 "special": "yes"}]})";
  files["tokenizer_config.json"] = R"({"added_tokens_decoder": {"9": {"content": "<s>", "special": 1}}})";
  const auto shapes = track::tokenizer_facts(files);
  EXPECT_EQ(shapes.special_tokens.count("x"), 0u);
  EXPECT_EQ(shapes.special_tokens.count("<s>"), 0u);

  std::vector<std::string> errors;
  std::map<std::string, std::string> templates = {
      {"tokenizer_config.json", json{{"chat_template", {{{"name", "default"}, {"template", "A"}}, {{"name", "tool_use"}, {"template", "B"}}}}}.dump()}};
  auto t = track::chat_template_facts(templates, errors);
  EXPECT_EQ(t.source, "tokenizer_config.json");
  EXPECT_EQ(t.templates, (std::map<std::string, std::string>{{"default", "A"}, {"tool_use", "B"}}));
  templates["chat_template.jinja"] = "C";
  t = track::chat_template_facts(templates, errors);
  EXPECT_EQ(t.source, "chat_template.jinja");
  EXPECT_EQ(t.templates, (std::map<std::string, std::string>{{"default", "C"}}));
}

TEST(TrackProgress, DrawsABarOnlyWhenGivenAStream) {
  EXPECT_EQ(track::ProgressBar::line("org/m", 250, 1000, 20), "org/m [#####...............] 250/1000 revisions");
  std::ostringstream out;
  {
    track::ProgressBar bar(&out);
    bar.start("org/m", 2);
    bar.advance();
    bar.advance();
  }
  EXPECT_NE(out.str().find("\rorg/m [##############################] 2/2 revisions\x1b[K"), std::string::npos);
  EXPECT_TRUE(out.str().ends_with("\r\x1b[K"));  // cleared on the way out
  track::ProgressBar silent(nullptr);
  silent.start("x", 1);
  silent.advance();
}
