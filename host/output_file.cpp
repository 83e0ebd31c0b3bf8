#include "depthsort/host/output_file.hpp"

#include <fcntl.h>
#include <climits>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <system_error>
#include <utility>

#include "depthsort/host/count_text.hpp"
#include "depthsort/host/stop_signal.hpp"
#include "depthsort/sort/errors.hpp"

namespace fs = std::filesystem;

namespace depthsort {
namespace {

// Paths that name an open stream rather than a file (/dev/stdout, /dev/fd/3, /proc/self/fd/1):
// even when they resolve to a regular file, that file is the shell's redirection, to be appended
// to in place, not replaced.
bool names_a_stream(const fs::path& path) {
  const std::string text = path.lexically_normal().string();
  return text == "/dev/stdout" || text == "/dev/stderr" || text.starts_with("/dev/fd/") ||
         (text.starts_with("/proc/") && text.find("/fd/") != std::string::npos);
}

// The descriptor of this process a path names (/dev/stdout: 1, /dev/fd/3, /proc/self/fd/3), or -1.
// Writing through a dup of it shares the file offset with the program's own output, so a CSV
// sent to a redirected stdout lands after what was printed instead of over it.
int own_descriptor(const fs::path& path) {
  const std::string text = path.lexically_normal().string();
  if (text == "/dev/stdout") return 1;
  if (text == "/dev/stderr") return 2;
  for (std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (!text.starts_with(prefix)) continue;
    const std::string_view digits = std::string_view(text).substr(prefix.size());
    int fd = -1;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), fd);
    if (ec == std::errc{} && end == digits.data() + digits.size()) return fd;
  }
  return -1;
}

// Where writing `path` lands: `path` itself, or, through a chain of symbolic links, the last
// link's target, each relative target read against the folder of the link that holds it (as the
// kernel resolves it). The target need not exist. Throws OutputError on a loop (ELOOP's limit).
fs::path follow_links(const fs::path& path) {
  constexpr int kMaxLinks = 40;  // Linux's limit on links followed in one lookup
  // Each step's folder in its canonical form (its own links followed, ".." taken physically), so
  // that two names of one file, existing or not yet, end as one spelling.
  const auto in_real_folder = [](const fs::path& p) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(p, ec);
    if (ec || !absolute.has_filename()) return absolute.lexically_normal();
    const fs::path folder = fs::weakly_canonical(absolute.parent_path(), ec);
    return ec ? absolute.lexically_normal() : folder / absolute.filename();
  };
  fs::path current = in_real_folder(path);
  for (int links = 0; links <= kMaxLinks; ++links) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(current, ec))) return current;
    const fs::path next = fs::read_symlink(current, ec);
    if (ec)
      throw OutputError("cannot write " + quote_path(path.string()) + ": cannot read the symbolic link " +
                        quote_path(current.string()) + ": " + ec.message());
    current = in_real_folder(next.is_absolute() ? next : current.parent_path() / next);
  }
  throw OutputError("cannot write " + quote_path(path.string()) + ": " + std::strerror(ELOOP));
}

// A temporary name beside `real` that the file system accepts: ".NAME.tmp-XXXXXX", NAME cut so
// that the whole stays within the folder's longest name (a target whose own name is near that
// limit must still be writable).
std::string temporary_pattern(const fs::path& folder, const fs::path& real) {
  constexpr std::string_view kSuffix = ".tmp-XXXXXX";
  errno = 0;
  long longest = ::pathconf(folder.c_str(), _PC_NAME_MAX);
  if (longest <= 0) longest = NAME_MAX;
  std::string name = real.filename().string();
  const std::size_t room = static_cast<std::size_t>(longest) - 1 - kSuffix.size();
  if (name.size() > room) name.resize(room);
  return (folder / ("." + name + std::string(kSuffix))).string();
}

// Opens a FIFO for writing, once: waits for a reader up to kOutputFifoSeconds (open without
// O_NONBLOCK would wait forever, and one opened to test and closed would hand the reader an end
// of file), then writes block as usual. Throws OutputError; a stop signal ends the wait.
int open_fifo(const fs::path& path, const std::string& shown) {
  constexpr int kStepMs = 50;
  for (int waited = 0;; waited += kStepMs) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd >= 0) {
      const int flags = ::fcntl(fd, F_GETFL);
      if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        const int error_number = errno;
        ::close(fd);
        throw OutputError("cannot write " + quote_path(shown) + ": fcntl: " + std::strerror(error_number));
      }
      return fd;
    }
    if (errno != ENXIO) throw OutputError("cannot open " + quote_path(shown) + ": " + std::strerror(errno));
    if (const int signal = stop_signal(); signal > 0)
      throw OutputError("cannot write " + quote_path(shown) + ": stopped by " + stop_signal_name(signal) +
                        " while waiting for a reader of the FIFO");
    if (waited >= kOutputFifoSeconds * 1000)
      throw OutputError("cannot write " + quote_path(shown) + ": it is a FIFO and nothing opened it for reading in " +
                        std::to_string(kOutputFifoSeconds) + " s; refused rather than waiting forever");
    ::usleep(kStepMs * 1000);  // a stop signal cuts it short (EINTR) and is seen above
  }
}

mode_t new_file_mode() {
  // umask can only be read by setting it; both programs set it nowhere else.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace

OutputFile::OutputFile(fs::path target) : target_(std::move(target)) {
  if (target_.empty()) throw OutputError("output file: the path is empty");
  std::error_code ec;
  const fs::file_status status = fs::status(target_, ec);  // follows symbolic links, /dev/stdout too
  if (fs::is_directory(status)) throw OutputError("cannot write " + quote_path(target_.string()) + ": it is a folder");
  direct_ = fs::exists(status) ? !fs::is_regular_file(status) || names_a_stream(target_) : names_a_stream(target_);
  if (direct_) {
    temporary_ = target_;
    const auto adopt = [&](int fd, const char* mode) {
      file_ = ::fdopen(fd, mode);
      if (file_ == nullptr) {
        const int error_number = errno;
        ::close(fd);
        fail("cannot open", error_number);
      }
    };
    const int own = own_descriptor(target_);
    if (fs::is_fifo(status) && own < 0) {
      adopt(open_fifo(target_, target_.string()), "wb");
      return;
    }
    // Appending: a redirection to a regular file keeps what the program printed before.
    if (own >= 0) {
      const int fd = ::dup(own);
      if (fd < 0) fail("cannot open", errno);
      adopt(fd, "ab");
      return;
    }
    file_ = std::fopen(target_.c_str(), "ab");
    if (file_ == nullptr) fail("cannot open", errno);
    return;
  }

  // A symbolic link is followed, as open() follows it: the file it points to is created or
  // replaced, in that file's folder, and the link stays.
  fs::path real = follow_links(target_);
  const fs::path folder = real.parent_path();
  if (fs::is_symlink(fs::symlink_status(target_, ec)) && !fs::is_directory(folder, ec))
    throw OutputError("cannot write " + quote_path(target_.string()) + ": it is a symbolic link to " +
                      quote_path(real.string()) + ", whose folder " + quote_path(folder.string()) + " does not exist");
  std::string pattern = temporary_pattern(folder, real);
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) fail("cannot create a temporary file in " + quote_path(folder.string()) + " for", errno);
  temporary_ = pattern;
  struct stat existing {};
  const mode_t mode = ::stat(real.c_str(), &existing) == 0 ? (existing.st_mode & 07777) : new_file_mode();
  if (::fchmod(fd, mode) != 0) {
    const int error_number = errno;
    ::close(fd);
    ::unlink(temporary_.c_str());
    fail("cannot set the permissions of", error_number);
  }
  file_ = ::fdopen(fd, "wb");
  if (file_ == nullptr) {
    const int error_number = errno;
    ::close(fd);
    ::unlink(temporary_.c_str());
    fail("cannot open", error_number);
  }
  target_real_ = std::move(real);
}

OutputFile::~OutputFile() { discard(); }

OutputFile::OutputFile(OutputFile&& other) noexcept
    : target_(std::move(other.target_)),
      target_real_(std::move(other.target_real_)),
      temporary_(std::move(other.temporary_)),
      file_(std::exchange(other.file_, nullptr)),
      direct_(other.direct_) {}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    discard();
    target_ = std::move(other.target_);
    target_real_ = std::move(other.target_real_);
    temporary_ = std::move(other.temporary_);
    file_ = std::exchange(other.file_, nullptr);
    direct_ = other.direct_;
  }
  return *this;
}

void OutputFile::discard() noexcept {
  if (file_ == nullptr) return;
  std::fclose(file_);
  file_ = nullptr;
  if (!direct_) ::unlink(temporary_.c_str());
}

void OutputFile::fail(std::string_view what, int error_number) {
  discard();
  throw OutputError(std::string(what) + " " + quote_path(target_.string()) + ": " + std::strerror(error_number));
}

void OutputFile::write(const void* data, std::size_t size) {
  if (file_ == nullptr) throw OutputError("cannot write " + quote_path(target_.string()) + ": already committed");
  if (size == 0) return;
  errno = 0;
  if (std::fwrite(data, 1, size, file_) != size) fail("cannot write", errno != 0 ? errno : EIO);
}

void OutputFile::commit() {
  if (file_ == nullptr) throw OutputError("cannot commit " + quote_path(target_.string()) + ": already committed");
  errno = 0;
  if (std::ferror(file_)) fail("cannot write", errno != 0 ? errno : EIO);
  if (std::fflush(file_) != 0) fail("cannot write", errno);
  // fsync makes the data durable before the rename publishes it; pipes and terminals refuse it
  // (EINVAL/ENOTSUP), which is no failure for a stream.
  if (::fsync(::fileno(file_)) != 0 && !(direct_ && (errno == EINVAL || errno == ENOTSUP || errno == EROFS)))
    fail("cannot write", errno);
  std::FILE* file = std::exchange(file_, nullptr);
  if (std::fclose(file) != 0) {
    const int error_number = errno;
    if (!direct_) ::unlink(temporary_.c_str());
    throw OutputError("cannot write " + quote_path(target_.string()) + ": " + std::strerror(error_number));
  }
  if (direct_) return;
  if (std::rename(temporary_.c_str(), target_real_.c_str()) != 0) {
    const int error_number = errno;
    ::unlink(temporary_.c_str());
    throw OutputError("cannot replace " + quote_path(target_.string()) + ": " + std::strerror(error_number));
  }
}

void write_file_atomically(const fs::path& target, std::string_view content) {
  OutputFile file(target);
  file.write(content);
  file.commit();
}

PlannedOutput::PlannedOutput(fs::path path) : path_(std::move(path)) {
  if (path_.empty()) return;
  OutputFile probe(path_);
  if (probe.direct()) {
    stream_ = std::make_unique<OutputFile>(std::move(probe));
    return;
  }
  final_ = final_output_path(path_);
}

void PlannedOutput::write(std::string_view content) {
  if (path_.empty()) return;
  if (stream_) {
    if (written_) throw OutputError("cannot write " + quote_path(path_.string()) + " twice: it is a stream");
    written_ = true;
    stream_->write(content);
    stream_->commit();
    return;
  }
  // The final name found at the start: a link changed since cannot send the output elsewhere.
  if (final_output_path(path_) != final_)
    throw OutputError("cannot write " + quote_path(path_.string()) + ": it named " + quote_path(final_.string()) +
                      " when the run started and names another file now; not written");
  write_file_atomically(path_, content);
}

namespace {

// Two names of one file: the same inode when both exist, else the same final name (links
// followed to the end, also to a file not there yet).
bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  const bool a_exists = fs::exists(a, ec);
  const bool b_exists = fs::exists(b, ec);
  if (a_exists && b_exists) {
    if (fs::is_character_file(a, ec)) return false;  // /dev/null twice is fine
    return fs::equivalent(a, b, ec) && !ec;
  }
  if (a_exists != b_exists) return false;
  try {
    return final_output_path(a) == final_output_path(b);
  } catch (const OutputError&) {
    return false;  // a loop of links: the write reports it
  }
}

}  // namespace

fs::path final_output_path(const fs::path& path) { return follow_links(path); }

std::string find_path_clash(std::span<const NamedPath> inputs, std::span<const NamedPath> outputs) {
  // The running program is an input of every run: an output must not replace it.
  const NamedPath self{"the running program", "/proc/self/exe"};
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& out = outputs[i];
    if (out.path.empty()) continue;
    auto clash = [&](const NamedPath& other) {
      return std::string(out.flag) + " " + quote_path(out.path.string()) + " is the same file as " +
             std::string(other.flag) + (other.flag == self.flag ? "" : " " + quote_path(other.path.string())) +
             ": give each output its own path";
    };
    if (same_file(out.path, self.path)) return clash(self);
    for (const NamedPath& in : inputs)
      if (!in.path.empty() && same_file(out.path, in.path)) return clash(in);
    for (std::size_t j = 0; j < i; ++j)
      if (!outputs[j].path.empty() && same_file(out.path, outputs[j].path)) return clash(outputs[j]);
  }
  return {};
}

}  // namespace depthsort
