#include "track/git_source.hpp"

#include <git2.h>

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"

namespace neurarch::track {
namespace {
namespace fs = std::filesystem;

// libgit2 objects are C handles; one deleter per type keeps every exit path leak-free.
template <typename T, void (*Free)(T*)>
struct Handle {
  T* ptr = nullptr;
  Handle() = default;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept : ptr(other.ptr) { other.ptr = nullptr; }
  Handle& operator=(Handle&&) = delete;
  ~Handle() {
    if (ptr) Free(ptr);
  }
  T** out() { return &ptr; }
  T* get() const { return ptr; }
};
using CommitHandle = Handle<git_commit, git_commit_free>;
using TreeHandle = Handle<git_tree, git_tree_free>;
using ObjectHandle = Handle<git_object, git_object_free>;
using BlobHandle = Handle<git_blob, git_blob_free>;
using OdbHandle = Handle<git_odb, git_odb_free>;
using RemoteHandle = Handle<git_remote, git_remote_free>;

std::string last_git_error() {
  const git_error* e = git_error_last();
  return e && e->message ? e->message : "unknown libgit2 error";
}

std::string hex(const git_oid* oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, oid);
  return buf;
}

git_oid parse_oid(const std::string& text, const std::string& where) {
  git_oid oid;
  if (git_oid_fromstr(&oid, text.c_str()) != 0) throw Error(ErrorKind::InvalidInput, where, "not a commit id: " + text);
  return oid;
}

// Keeps libgit2's global state alive for as long as any source is open.
struct LibraryUse {
  LibraryUse() { git_libgit2_init(); }
  ~LibraryUse() { git_libgit2_shutdown(); }
  LibraryUse(const LibraryUse&) = delete;
  LibraryUse& operator=(const LibraryUse&) = delete;
};

}  // namespace

struct GitSource::Impl {
  LibraryUse library;
  git_repository* repo = nullptr;
  std::string where;
  std::string ref;
  git_oid tip{};

  ~Impl() {
    if (repo) git_repository_free(repo);
  }

  CommitHandle lookup(const std::string& commit) {
    CommitHandle c;
    const git_oid oid = parse_oid(commit, where);
    if (git_commit_lookup(c.out(), repo, &oid) != 0)
      throw Error(ErrorKind::NotFound, where, fmt::format("commit {} is not in this clone: {}", commit, last_git_error()));
    return c;
  }
};

GitSource::GitSource(const fs::path& path, std::string ref) : impl_(std::make_unique<Impl>()) {
  impl_->where = path.string();
  impl_->ref = std::move(ref);
  if (git_repository_open_ext(&impl_->repo, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) != 0)
    throw Error(ErrorKind::NotFound, impl_->where, "not a git repository (clone the model with GIT_LFS_SKIP_SMUDGE=1 git clone)");
  ObjectHandle target, commit;
  if (git_revparse_single(target.out(), impl_->repo, impl_->ref.c_str()) != 0 ||
      git_object_peel(commit.out(), target.get(), GIT_OBJECT_COMMIT) != 0)
    throw Error(ErrorKind::NotFound, impl_->where,
                fmt::format("'{}' does not name a commit here (an empty repository?): {}", impl_->ref, last_git_error()));
  git_oid_cpy(&impl_->tip, git_object_id(commit.get()));
}

GitSource::~GitSource() = default;

std::string GitSource::url() const {
  RemoteHandle remote;
  if (git_remote_lookup(remote.out(), impl_->repo, "origin") == 0 && git_remote_url(remote.get()))
    return git_remote_url(remote.get());
  std::error_code ec;
  const fs::path absolute = fs::absolute(impl_->where, ec);
  std::string path = ec ? impl_->where : absolute.lexically_normal().string();
  while (path.size() > 1 && path.back() == '/') path.pop_back();  // "clone/." normalises to "clone/"
  return "file://" + path;
}

std::string GitSource::hub_id() const {
  std::string u = url();
  for (const std::string prefix : {"https://huggingface.co/", "http://huggingface.co/", "https://hf.co/"}) {
    if (!u.starts_with(prefix)) continue;
    std::string id = u.substr(prefix.size());
    if (id.ends_with(".git")) id.resize(id.size() - 4);
    while (!id.empty() && id.back() == '/') id.pop_back();
    // Datasets and spaces live under their own prefixes; the tracker follows models only.
    if (id.starts_with("datasets/") || id.starts_with("spaces/")) return "";
    return id;
  }
  return "";
}

std::string GitSource::tip() { return hex(&impl_->tip); }

std::vector<SourceCommit> GitSource::commits_since(const std::function<bool(const std::string&)>& known) {
  std::vector<SourceCommit> chain;
  std::string next = hex(&impl_->tip);
  while (!next.empty() && !known(next)) {
    CommitHandle c = impl_->lookup(next);
    SourceCommit sc;
    sc.commit = next;
    sc.time = static_cast<std::int64_t>(git_commit_committer(c.get())->when.time);
    const git_signature* author = git_commit_author(c.get());
    sc.author = author && author->name ? author->name : "";
    const char* summary = git_commit_summary(c.get());
    sc.title = summary ? summary : "";
    next.clear();
    if (git_commit_parentcount(c.get()) > 0) {
      sc.parent = hex(git_commit_parent_id(c.get(), 0));
      CommitHandle parent;
      const git_oid* pid = git_commit_parent_id(c.get(), 0);
      if (known(sc.parent)) {
        // The walk ends here; the parent's stored record is the baseline.
      } else if (git_commit_lookup(parent.out(), impl_->repo, pid) != 0) {
        sc.problems.push_back({"", fmt::format("parent {} is not in this clone (a shallow clone?): this revision is "
                                               "recorded without a comparison; fetch the full history to classify it",
                                               sc.parent)});
      } else {
        next = sc.parent;
      }
    }
    chain.push_back(std::move(sc));
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

std::vector<SourceFile> GitSource::files(const std::string& commit) {
  CommitHandle c = impl_->lookup(commit);
  TreeHandle tree;
  if (git_commit_tree(tree.out(), c.get()) != 0)
    throw Error(ErrorKind::Io, impl_->where, fmt::format("cannot read the tree of {}: {}", commit, last_git_error()));
  OdbHandle odb;
  if (git_repository_odb(odb.out(), impl_->repo) != 0) throw Error(ErrorKind::Io, impl_->where, last_git_error());
  std::vector<SourceFile> out;
  const std::size_t n = git_tree_entrycount(tree.get());
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(tree.get(), i);
    if (git_tree_entry_type(e) != GIT_OBJECT_BLOB) continue;
    SourceFile f;
    f.path = git_tree_entry_name(e);
    f.blob = hex(git_tree_entry_id(e));
    // The size comes from the object header, so a large file in git is never loaded to be listed.
    std::size_t size = 0;
    git_object_t type{};
    if (git_odb_read_header(&size, &type, odb.get(), git_tree_entry_id(e)) == 0) f.size = static_cast<std::int64_t>(size);
    out.push_back(std::move(f));
  }
  return out;
}

std::string GitSource::read(const std::string& commit, const SourceFile& file, std::uint64_t max_bytes) {
  const std::string where = fmt::format("{}@{}", file.path, commit.substr(0, 12));
  if (static_cast<std::uint64_t>(file.size) > max_bytes)
    throw Error(ErrorKind::InvalidInput, where, fmt::format("{} bytes, more than the {} read for this kind of file", file.size, max_bytes));
  BlobHandle blob;
  const git_oid oid = parse_oid(file.blob, where);
  if (git_blob_lookup(blob.out(), impl_->repo, &oid) != 0)
    throw Error(ErrorKind::Io, where, "cannot read the blob: " + last_git_error());
  const auto size = static_cast<std::size_t>(git_blob_rawsize(blob.get()));
  if (size > max_bytes) throw Error(ErrorKind::InvalidInput, where, fmt::format("{} bytes, more than {}", size, max_bytes));
  return std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())), size);
}

std::vector<std::string> GitSource::repository_problems() {
  if (git_repository_is_shallow(impl_->repo) == 1)
    return {"shallow clone: history before its oldest commit is missing, so that revision cannot be compared; "
            "fetch with --unshallow for the full history"};
  return {};
}

}  // namespace neurarch::track
