#include "depthsort/host/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <system_error>
#include <utility>

#include "depthsort/host/count_text.hpp"
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
  fs::path current = path;
  for (int links = 0; links <= kMaxLinks; ++links) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(current, ec))) return current;
    const fs::path next = fs::read_symlink(current, ec);
    if (ec)
      throw OutputError("cannot write " + quote_path(path.string()) + ": cannot read the symbolic link " +
                        quote_path(current.string()) + ": " + ec.message());
    current = next.is_absolute() ? next : current.parent_path() / next;
  }
  throw OutputError("cannot write " + quote_path(path.string()) + ": " + std::strerror(ELOOP));
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
  if (fs::is_directory(status))
    throw OutputError("cannot write " + quote_path(target_.string()) + ": it is a folder");
  direct_ = fs::exists(status) ? !fs::is_regular_file(status) || names_a_stream(target_)
                               : names_a_stream(target_);
  if (direct_) {
    temporary_ = target_;
    // Appending: a redirection to a regular file keeps what the program printed before.
    if (const int own = own_descriptor(target_); own >= 0) {
      const int fd = ::dup(own);
      if (fd < 0) fail("cannot open", errno);
      file_ = ::fdopen(fd, "ab");
      if (file_ == nullptr) {
        const int error_number = errno;
        ::close(fd);
        fail("cannot open", error_number);
      }
      return;
    }
    file_ = std::fopen(target_.c_str(), "ab");
    if (file_ == nullptr) fail("cannot open", errno);
    return;
  }

  // A symbolic link is followed, as open() follows it: the file it points to is created or
  // replaced, in that file's folder, and the link stays.
  fs::path real = follow_links(target_);
  const fs::path folder = real.has_parent_path() ? real.parent_path() : fs::path(".");
  if (real != target_ && !fs::is_directory(folder, ec))
    throw OutputError("cannot write " + quote_path(target_.string()) + ": it is a symbolic link to " +
                      quote_path(real.string()) + ", whose folder " + quote_path(folder.string()) +
                      " does not exist");
  std::string pattern = (folder / ("." + real.filename().string() + ".tmp-XXXXXX")).string();
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
  throw OutputError(std::string(what) + " " + quote_path(target_.string()) + ": " +
                    std::strerror(error_number));
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

namespace {

// Two names of one file: the same inode when both exist, else the same canonical spelling.
bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  const bool a_exists = fs::exists(a, ec);
  const bool b_exists = fs::exists(b, ec);
  if (a_exists && b_exists) {
    if (fs::is_character_file(a, ec)) return false;  // /dev/null twice is fine
    return fs::equivalent(a, b, ec) && !ec;
  }
  if (a_exists != b_exists) return false;
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ec), ec);
  const fs::path cb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return !ca.empty() && ca == cb;
}

}  // namespace

std::string find_path_clash(std::span<const NamedPath> inputs, std::span<const NamedPath> outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& out = outputs[i];
    if (out.path.empty()) continue;
    auto clash = [&](const NamedPath& other) {
      return std::string(out.flag) + " " + quote_path(out.path.string()) + " is the same file as " +
             std::string(other.flag) + " " + quote_path(other.path.string()) +
             ": give each output its own path";
    };
    for (const NamedPath& in : inputs)
      if (!in.path.empty() && same_file(out.path, in.path)) return clash(in);
    for (std::size_t j = 0; j < i; ++j)
      if (!outputs[j].path.empty() && same_file(out.path, outputs[j].path)) return clash(outputs[j]);
  }
  return {};
}

}  // namespace depthsort
