// Output files that never look complete before they are (docs/architecture.md). Everything is
// written to a temporary name beside the target (same directory, hence same file system) and
// renamed to the final name only on commit(); rename(2) is atomic, so a reader sees either no file
// or the whole file, never a half-written one under the final name. The data are fsync'ed before
// the rename so that after a crash the final name cannot point at a file whose blocks never reached
// the disk.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace dpmcmc {

class AtomicFile {
 public:
  struct Options {
    // Appended to the final name to form the temporary name.
    std::string temp_suffix = ".tmp";
    // Whether the temporary file survives when the object is destroyed without commit(): a
    // failed dataset or report write leaves nothing behind (false); an aborted chain keeps its
    // draws under the temporary name NAME.csv.part, which says it is incomplete (true).
    bool keep_on_abandon = false;
    // Whether an existing file under the final name is deleted when writing starts. False (the
    // default) gives an atomic replace: the old file stays intact until commit(). True is for
    // long runs (draws): while the run goes on, an old result must not sit under the final name
    // looking like this run's.
    bool remove_stale_final = false;
  };

  // Creates the parent directory if missing and opens the temporary file for writing
  // (truncating it). Throws OutputError (73) naming the path when this fails.
  explicit AtomicFile(std::filesystem::path final_path)
      : AtomicFile(std::move(final_path), Options{}) {}
  AtomicFile(std::filesystem::path final_path, Options options);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  // Appends bytes (buffered). Throws OutputError on a write error (e.g. disk full).
  void write(std::string_view bytes);
  // Hands buffered bytes to the operating system so that a reader (or a crash) sees them.
  void flush();
  // Flushes, fsyncs, closes and renames the temporary file to the final name. After commit()
  // only final_path() exists. Throws OutputError on failure (the temporary file is kept then).
  void commit();

  bool committed() const { return committed_; }
  const std::filesystem::path& final_path() const { return final_path_; }
  const std::filesystem::path& temp_path() const { return temp_path_; }

 private:
  [[noreturn]] void fail(const std::string& what, int error_number) const;
  std::filesystem::path final_path_;
  std::filesystem::path temp_path_;
  bool keep_on_abandon_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

// Writes `contents` to `path` through an AtomicFile (temporary name `path + ".tmp"`).
void write_file_atomic(const std::filesystem::path& path, std::string_view contents);

}  // namespace dpmcmc
