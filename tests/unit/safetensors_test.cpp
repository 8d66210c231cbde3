#include "checkpoint/safetensors.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace neurarch::checkpoint {
namespace {

namespace fs = std::filesystem;

std::string length_prefix(std::uint64_t length) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((length >> (8 * i)) & 0xff);
  return out;
}

std::string safetensors_bytes(const std::string& header, std::size_t data_bytes) {
  return length_prefix(header.size()) + header + std::string(data_bytes, '\0');
}

std::string entry(const std::string& dtype, const std::string& shape, std::uint64_t begin, std::uint64_t end) {
  return "{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":[" + std::to_string(begin) + "," +
         std::to_string(end) + "]}";
}

// Runs `f`, which must throw neurarch::Error; returns it so tests can inspect kind and text.
template <class F>
Error error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a neurarch::Error";
  return Error(ErrorKind::Io, "", "no error thrown");
}

// Every failure must name the file and say what is wrong.
#define EXPECT_INVALID(expr, file, fragment)                                          \
  do {                                                                                \
    const Error e_ = error_of([&] { (void)(expr); });                                 \
    EXPECT_EQ(e_.kind(), ErrorKind::InvalidInput) << e_.what();                       \
    EXPECT_NE(std::string(e_.what()).find(file), std::string::npos) << e_.what();     \
    EXPECT_NE(std::string(e_.what()).find(fragment), std::string::npos) << e_.what(); \
  } while (0)

class SafetensorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("neurarch_st_" + std::string(info->name()) + "_" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return dir_ / name;
  }
  fs::path write_st(const std::string& name, const std::string& header, std::size_t data_bytes) {
    return write(name, safetensors_bytes(header, data_bytes));
  }
  fs::path dir_;
};

TEST_F(SafetensorsTest, ValidSingleFileWithMetadata) {
  const std::string header = "{\"__metadata__\":{\"format\":\"pt\"},\"b\":" + entry("F32", "[2,3]", 8, 32) +
                             ",\"a\":" + entry("BF16", "[4]", 0, 8) + "}";
  const auto path = write_st("model.safetensors", header, 32);
  const Checkpoint ck = read_safetensors_file(path);

  ASSERT_EQ(ck.tensors.size(), 2u);
  EXPECT_EQ(ck.tensors[0].name, "a");  // file order: by data offset, not by header order
  EXPECT_EQ(ck.tensors[0].dtype, DType::BF16);
  EXPECT_EQ(ck.tensors[1].name, "b");
  EXPECT_EQ(ck.tensors[1].shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(ck.tensors[1].begin, 8u);
  EXPECT_EQ(ck.tensors[1].end, 32u);
  EXPECT_EQ(ck.tensors[1].file, "model.safetensors");
  EXPECT_EQ(ck.files, std::vector<std::string>{"model.safetensors"});
  EXPECT_EQ(ck.metadata.at("format"), "pt");
  EXPECT_EQ(ck.total_scalars, 10);
  EXPECT_EQ(ck.header_bytes_read, 8 + header.size());
  ASSERT_NE(ck.find("b"), nullptr);
  EXPECT_EQ(ck.find("b")->scalars(), 6);
  EXPECT_EQ(ck.find("missing"), nullptr);
}

TEST_F(SafetensorsTest, AcceptsSpacePaddedHeaderScalarsAndEmptyTensors) {
  const std::string header = "{\"s\":" + entry("I64", "[]", 0, 8) + ",\"e\":" + entry("F16", "[0,5]", 8, 8) + "}   ";
  const Checkpoint ck = read_safetensors_file(write_st("model.safetensors", header, 8));
  ASSERT_EQ(ck.tensors.size(), 2u);
  EXPECT_EQ(ck.tensors[0].name, "s");
  EXPECT_EQ(ck.find("s")->scalars(), 1);
  EXPECT_EQ(ck.find("e")->scalars(), 0);
  EXPECT_EQ(ck.header_bytes_read, 8 + header.size());
}

TEST_F(SafetensorsTest, ShardedCheckpointWithIndex) {
  const std::string h1 = "{\"__metadata__\":{\"format\":\"pt\"},\"w1\":" + entry("F32", "[4]", 0, 16) + "}";
  const std::string h2 = "{\"w2\":" + entry("F16", "[2,2]", 0, 8) + ",\"w3\":" + entry("U8", "[3]", 8, 11) + "}";
  write_st("model-00001-of-00002.safetensors", h1, 16);
  write_st("model-00002-of-00002.safetensors", h2, 11);
  write("model.safetensors.index.json",
        R"({"metadata":{"total_size":35},"weight_map":{"w3":"model-00002-of-00002.safetensors",)"
        R"("w1":"model-00001-of-00002.safetensors","w2":"model-00002-of-00002.safetensors"}})");
  write_st("stray.safetensors", h1, 16);  // an index decides which files belong

  const auto ck = read_checkpoint_dir(dir_);
  ASSERT_TRUE(ck.has_value());
  ASSERT_EQ(ck->tensors.size(), 3u);
  EXPECT_EQ(ck->tensors[0].name, "w1");
  EXPECT_EQ(ck->tensors[1].name, "w2");
  EXPECT_EQ(ck->tensors[2].name, "w3");
  EXPECT_EQ(ck->tensors[2].file, "model-00002-of-00002.safetensors");
  EXPECT_EQ(ck->files,
            (std::vector<std::string>{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}));
  EXPECT_EQ(ck->metadata.at("format"), "pt");
  EXPECT_EQ(ck->total_scalars, 11);
  EXPECT_EQ(ck->header_bytes_read, 16 + h1.size() + h2.size());
}

TEST_F(SafetensorsTest, FolderWithoutIndexReadsEverySafetensorsFileSorted) {
  write_st("b.safetensors", "{\"y\":" + entry("F32", "[1]", 0, 4) + "}", 4);
  write_st("a.safetensors", "{\"x\":" + entry("F32", "[1]", 0, 4) + "}", 4);
  write("notes.txt", "not a checkpoint");
  const auto ck = read_checkpoint_dir(dir_);
  ASSERT_TRUE(ck.has_value());
  EXPECT_EQ(ck->files, (std::vector<std::string>{"a.safetensors", "b.safetensors"}));
  EXPECT_EQ(ck->tensors[0].name, "x");
}

TEST_F(SafetensorsTest, FolderWithoutCheckpointIsNullopt) {
  write("config.json", "{}");
  EXPECT_FALSE(read_checkpoint_dir(dir_).has_value());
  EXPECT_EQ(error_of([&] { (void)read_checkpoint_dir(dir_ / "absent"); }).kind(), ErrorKind::NotFound);
}

TEST_F(SafetensorsTest, TruncatedFile) {
  const auto path = write("model.safetensors", "\x05\x00\x00");
  const Error e = error_of([&] { (void)read_safetensors_file(path); });
  EXPECT_EQ(e.where(), "model.safetensors@0");
  EXPECT_NE(std::string(e.what()).find("too short"), std::string::npos) << e.what();
}

TEST_F(SafetensorsTest, HeaderLengthBeyondFile) {
  const auto path = write("model.safetensors", length_prefix(50) + "{}");
  EXPECT_INVALID(read_safetensors_file(path), "model.safetensors@0", "past the end");
}

TEST_F(SafetensorsTest, HeaderLengthZero) {
  const auto path = write("model.safetensors", length_prefix(0) + "{}");
  EXPECT_INVALID(read_safetensors_file(path), "model.safetensors@0", "length is 0");
}

TEST_F(SafetensorsTest, HugeHeaderRefusedBeforeAllocating) {
  // Only the prefix exists: a reader that allocated or read first would fail differently or not at all.
  const auto path = write("model.safetensors", length_prefix(200ull << 20));
  EXPECT_INVALID(read_safetensors_file(path), "model.safetensors@0", "limit");
  // Even when the file is big enough to hold it, and for lengths near 2^64 (no 8 + n overflow).
  EXPECT_INVALID(parse_safetensors_header(length_prefix(200ull << 20), 1ull << 40, "big.safetensors"),
                 "big.safetensors@0", "limit");
  EXPECT_INVALID(parse_safetensors_header(length_prefix(~0ull), ~0ull, "big.safetensors"), "big.safetensors@0",
                 "limit");
}

TEST_F(SafetensorsTest, HeaderTruncatedInBuffer) {
  EXPECT_INVALID(parse_safetensors_header(length_prefix(10) + "{}", 100, "m.safetensors"), "m.safetensors@10",
                 "truncated");
}

TEST_F(SafetensorsTest, InvalidJsonReportsByteOffset) {
  const auto path = write_st("model.safetensors", "{\"a\" 1}", 0);
  const Error e = error_of([&] { (void)read_safetensors_file(path); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
  EXPECT_EQ(e.where(), "model.safetensors@13");  // 8-byte prefix + index of the '1'
  EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();
  // nlohmann reports number overflow as out_of_range, not parse_error (found by the fuzzer).
  EXPECT_INVALID(read_safetensors_file(write_st("big.safetensors", R"({"x":1e999})", 0)), "big.safetensors@",
                 "not valid JSON: number overflow");
}

TEST_F(SafetensorsTest, HeaderMustBeAnObjectOfObjects) {
  EXPECT_INVALID(read_safetensors_file(write_st("model.safetensors", "[1,2]", 0)), "model.safetensors@8",
                 "not an object");
  EXPECT_INVALID(read_safetensors_file(write_st("model.safetensors", "{\"x\":3}", 0)), "model.safetensors: tensor 'x'",
                 "not an object");
  EXPECT_INVALID(read_safetensors_file(write_st("model.safetensors", R"({"x":{"dtype":"F32","shape":[1]}})", 4)),
                 "model.safetensors: tensor 'x'", "data_offsets");
  EXPECT_INVALID(read_safetensors_file(write_st("model.safetensors", R"({"__metadata__":{"k":1}})", 0)),
                 "model.safetensors: __metadata__", "not a string");
}

TEST_F(SafetensorsTest, DuplicateNameInHeader) {
  const std::string header = "{\"x\":" + entry("U8", "[1]", 0, 1) + ",\"x\":" + entry("U8", "[1]", 1, 2) + "}";
  EXPECT_INVALID(read_safetensors_file(write_st("model.safetensors", header, 2)), "model.safetensors: tensor 'x'",
                 "twice");
}

TEST_F(SafetensorsTest, UnknownDtype) {
  const auto path = write_st("model.safetensors", "{\"x\":" + entry("F33", "[1]", 0, 4) + "}", 4);
  EXPECT_INVALID(read_safetensors_file(path), "model.safetensors: tensor 'x'", "unknown dtype 'F33'");
}

TEST_F(SafetensorsTest, NegativeDimension) {
  const auto path = write_st("model.safetensors", "{\"x\":" + entry("F32", "[-1,4]", 0, 4) + "}", 4);
  EXPECT_INVALID(read_safetensors_file(path), "model.safetensors: tensor 'x'", "negative");
}

TEST_F(SafetensorsTest, ShapeOverflow) {
  const auto path = write_st("model.safetensors", "{\"x\":" + entry("F32", "[4294967296,4294967296]", 0, 4) + "}", 4);
  EXPECT_INVALID(read_safetensors_file(path), "model.safetensors: tensor 'x'", "2^40");
  const auto huge = write_st("huge.safetensors", "{\"x\":" + entry("F32", "[18446744073709551615]", 0, 4) + "}", 4);
  EXPECT_INVALID(read_safetensors_file(huge), "huge.safetensors: tensor 'x'", "limit");
}

TEST_F(SafetensorsTest, OverlappingOffsets) {
  const std::string header = "{\"a\":" + entry("F32", "[2]", 0, 8) + ",\"b\":" + entry("F32", "[2]", 4, 12) + "}";
  EXPECT_INVALID(read_safetensors_file(write_st("model.safetensors", header, 12)), "model.safetensors: tensor 'b'",
                 "overlap tensor 'a'");
}

TEST_F(SafetensorsTest, OutOfRangeOffsets) {
  const auto path = write_st("model.safetensors", "{\"x\":" + entry("F32", "[2]", 4, 12) + "}", 8);
  EXPECT_INVALID(read_safetensors_file(path), "model.safetensors: tensor 'x'", "run past");
  const auto descending = write_st("d.safetensors", "{\"x\":" + entry("F32", "[0]", 4, 0) + "}", 8);
  EXPECT_INVALID(read_safetensors_file(descending), "d.safetensors: tensor 'x'", "descending");
  const auto negative = write_st("n.safetensors", R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}})", 8);
  EXPECT_INVALID(read_safetensors_file(negative), "n.safetensors: tensor 'x'", "non-negative integers");
}

TEST_F(SafetensorsTest, LengthMismatch) {
  const auto path = write_st("model.safetensors", "{\"x\":" + entry("F32", "[3]", 0, 8) + "}", 8);
  EXPECT_INVALID(read_safetensors_file(path), "model.safetensors: tensor 'x'", "need 12");
}

TEST_F(SafetensorsTest, IndexListsTensorMissingFromShard) {
  write_st("model-1.safetensors", "{\"w1\":" + entry("F32", "[1]", 0, 4) + "}", 4);
  write("model.safetensors.index.json", R"({"weight_map":{"w1":"model-1.safetensors","ghost":"model-1.safetensors"}})");
  EXPECT_INVALID(read_checkpoint_dir(dir_), "model-1.safetensors: tensor 'ghost'", "absent");
}

TEST_F(SafetensorsTest, ShardTensorNotListedInIndex) {
  write_st("model-1.safetensors",
           "{\"w1\":" + entry("F32", "[1]", 0, 4) + ",\"extra\":" + entry("F32", "[1]", 4, 8) + "}", 8);
  write("model.safetensors.index.json", R"({"weight_map":{"w1":"model-1.safetensors"}})");
  EXPECT_INVALID(read_checkpoint_dir(dir_), "model-1.safetensors: tensor 'extra'", "not listed");
}

TEST_F(SafetensorsTest, IndexNamingMissingShardIsNotFound) {
  write("model.safetensors.index.json", R"({"weight_map":{"w1":"model-9.safetensors"}})");
  const Error e = error_of([&] { (void)read_checkpoint_dir(dir_); });
  EXPECT_EQ(e.kind(), ErrorKind::NotFound);
  EXPECT_NE(std::string(e.what()).find("model-9.safetensors"), std::string::npos) << e.what();
}

TEST_F(SafetensorsTest, IndexCannotPointOutsideItsFolder) {
  EXPECT_INVALID(parse_safetensors_index(R"({"weight_map":{"w":"../secret.safetensors"}})", "idx.json"),
                 "idx.json: tensor 'w'", "plain file name");
  EXPECT_INVALID(parse_safetensors_index(R"({"weight_map":{"w":"/etc/passwd"}})", "idx.json"), "idx.json",
                 "plain file name");
  EXPECT_INVALID(parse_safetensors_index(R"({"weight_map":[]})", "idx.json"), "idx.json: weight_map", "not an object");
  EXPECT_INVALID(parse_safetensors_index("{\"weight_map\":", "idx.json"), "idx.json@", "not valid JSON");
}

TEST_F(SafetensorsTest, DuplicateTensorAcrossShards) {
  write_st("a.safetensors", "{\"w\":" + entry("F32", "[1]", 0, 4) + "}", 4);
  write_st("b.safetensors", "{\"w\":" + entry("F32", "[1]", 0, 4) + "}", 4);
  EXPECT_INVALID(read_checkpoint_dir(dir_), "b.safetensors: tensor 'w'", "also present in 'a.safetensors'");
}

}  // namespace
}  // namespace neurarch::checkpoint
