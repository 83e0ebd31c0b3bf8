// Output files that are either complete or absent: a crash, a full disk or a failed write never
// leaves a truncated result where the user expects one, and an output never silently replaces
// an input or another output. Shared by the demo and the benchmark.
#pragma once

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "depthsort/sort/errors.hpp"

namespace depthsort {

// Writing an output file failed (or would overwrite what it must not); the message names the
// file and the operating system's reason.
class OutputError : public Error {
 public:
  using Error::Error;
};

// Writes go to a unique temporary file in the target's folder; commit() flushes, fsyncs and closes
// it, checking each step, then renames it over the target, so the target changes in one step.
// Every failure throws OutputError naming the target and strerror(errno); destruction without a
// successful commit() removes the temporary file.
//
// Targets that are not regular files (/dev/null, /dev/stdout, a FIFO) cannot be replaced by a
// rename: they are written directly, every write still checked (writing to /dev/full throws).
// A folder as target is refused at construction.
//
// A symbolic link as target is followed as open() follows it, through chains of links and
// relative link targets (each read against its link's folder), whether or not the file it points
// to exists yet: that file is created or replaced, atomically in its own folder, and the link
// stays. A link into a folder that does not exist is refused, naming the link and its target.
class OutputFile {
 public:
  explicit OutputFile(std::filesystem::path target);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&& other) noexcept;

  // Checked writes (a short write throws at once; a deferred error surfaces at commit()).
  void write(const void* data, std::size_t size);
  void write(std::string_view text) { write(text.data(), text.size()); }

  // The open stream, for writers that need a FILE* (fprintf, a PNG encoder's callback); what is
  // written through it is checked at commit() (ferror, fflush). Null after commit().
  std::FILE* stream() const noexcept { return file_; }

  // Makes the output appear under the target's name; throws OutputError on any failure (and then
  // leaves no temporary file). Calling it twice is an error.
  void commit();

  const std::filesystem::path& target() const noexcept { return target_; }
  // Where the bytes go until commit(): the temporary file, or the target itself when direct().
  const std::filesystem::path& temporary() const noexcept { return temporary_; }
  bool direct() const noexcept { return direct_; }

 private:
  [[noreturn]] void fail(std::string_view what, int error_number);
  void discard() noexcept;

  std::filesystem::path target_;       // as given, for messages
  std::filesystem::path target_real_;  // what the rename replaces (symbolic links followed)
  std::filesystem::path temporary_;
  std::FILE* file_ = nullptr;
  bool direct_ = false;
};

// Writes `content` to `target` through an OutputFile: all of it, or nothing (throws OutputError).
void write_file_atomically(const std::filesystem::path& target, std::string_view content);

// A FIFO named as an output is opened once; a reader must open it within this many seconds.
constexpr int kOutputFifoSeconds = 10;

// Where writing `path` finally lands: the path with its folder in canonical form, through every
// symbolic link to the end of the chain, whether or not that last file exists yet. Throws
// OutputError on a loop of links.
std::filesystem::path final_output_path(const std::filesystem::path& path);

// An output named on a command line, resolved once, before anything runs, to what it will name
// at the end: a regular file (or none yet) is found writable now (a temporary file is made beside
// its final name and removed) and replaced whole by each write(); anything else (a device, a
// pipe, a FIFO, the program's own stdout) is opened now, once, and written once, at the end, so
// that a reader sees one whole output and never an end of file before it. Every failure throws
// OutputError naming the path as given.
class PlannedOutput {
 public:
  PlannedOutput() = default;  // no output
  explicit PlannedOutput(std::filesystem::path path);

  bool empty() const noexcept { return path_.empty(); }
  const std::filesystem::path& path() const noexcept { return path_; }
  // Written as a stream (once) rather than replaced.
  bool stream() const noexcept { return stream_ != nullptr; }
  // The output becomes `content`, whole; a stream's second write throws.
  void write(std::string_view content);

 private:
  std::filesystem::path path_;   // as given, for messages
  std::filesystem::path final_;  // what a regular file's write replaces
  std::unique_ptr<OutputFile> stream_;
  bool written_ = false;
};

// A path the program reads or writes, with the flag that named it ("--mesh", "--csv").
struct NamedPath {
  std::string_view flag;
  std::filesystem::path path;
};

// "" when every output differs from every input and from every other output; otherwise one line
// naming both flags and the path, e.g. "--json 'a.csv' is the same file as --csv 'a.csv'".
// Empty paths are skipped. Works for outputs that do not exist yet (compared by their
// weakly_canonical form) and for existing ones reached by another name (hard or symbolic links).
// Character devices (/dev/null) may be named more than once.
std::string find_path_clash(std::span<const NamedPath> inputs, std::span<const NamedPath> outputs);

}  // namespace depthsort
