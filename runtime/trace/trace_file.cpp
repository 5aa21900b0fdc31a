// Opening traces by path with format detection, and converting between forms.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

#include "runtime/trace/path_map.h"
#include "runtime/trace/text_format.h"
#include "runtime/trace/trace_io.h"

#include "runtime/trace/trace_readers.h"

namespace streamcheck {

std::string_view TraceFormatName(TraceFormat format) {
  return format == TraceFormat::kBinary ? "binary" : "text";
}

bool TraceFormatFromName(std::string_view name, TraceFormat* format) {
  if (name == "binary") {
    *format = TraceFormat::kBinary;
  } else if (name == "text") {
    *format = TraceFormat::kText;
  } else {
    return false;
  }
  return true;
}

TraceFormat DetectTraceFormat(std::string_view first_bytes) {
  if (first_bytes.empty()) return TraceFormat::kText;
  if (first_bytes[0] == kBinaryTraceMagic[0]) return TraceFormat::kBinary;
  // A binary trace whose first byte was damaged should still get the binary
  // reader's "bad magic" error rather than a puzzling text parse error.
  if (first_bytes.substr(1, 5) == kBinaryTraceMagic.substr(1, 5)) return TraceFormat::kBinary;
  return TraceFormat::kText;
}

namespace {

std::unique_ptr<TraceSource> OpenInput(std::unique_ptr<trace_internal::ByteInput> input,
                                       std::string name) {
  const uint8_t* data;
  size_t got = input->Peek(kBinaryTraceMagic.size(), &data);
  std::string_view first(reinterpret_cast<const char*>(data), got);
  if (DetectTraceFormat(first) == TraceFormat::kBinary) {
    return trace_internal::MakeBinaryTraceReader(std::move(input), std::move(name));
  }
  return trace_internal::MakeTextTraceReader(std::move(input), std::move(name));
}

}  // namespace

namespace {

// A pipe (`replay <(zcat t.gz)`, /dev/stdin, a FIFO) can be read only once,
// and replay reads its trace twice (stacks and process first): the first open
// copies its bytes into an unlinked temporary file, which this and every later
// open of the same path in this process read, each from the start. Before,
// the second open found the pipe drained and the records past the first
// buffer were lost.
class PipeCopies {
 public:
  static PipeCopies& Get() {
    static PipeCopies* copies = new PipeCopies;  // never destroyed: used until exit
    return *copies;
  }

  // `file`, or, when it is not a regular file, a stream of its copy from the
  // start (nullptr with `error` set when the copy cannot be made).
  std::FILE* Seekable(std::FILE* file, const std::string& path, std::string* error) {
    struct stat st;
    if (fstat(fileno(file), &st) == 0 && S_ISREG(st.st_mode)) return file;
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = copies_.find(path);
    if (it == copies_.end()) {
      const int copy = CopyToTemporaryFile(file, path, error);
      if (copy < 0) {
        std::fclose(file);
        return nullptr;
      }
      it = copies_.emplace(path, copy).first;
    }
    std::fclose(file);
    // A description of its own, so that each reader starts at byte 0.
    std::FILE* reread = std::fopen(("/proc/self/fd/" + std::to_string(it->second)).c_str(), "rb");
    if (reread == nullptr) *error = path + ": cannot read back its copy: " + std::strerror(errno);
    return reread;
  }

 private:
  static int CopyToTemporaryFile(std::FILE* from, const std::string& path, std::string* error) {
    const char* tmpdir = std::getenv("TMPDIR");
    std::string name = std::string(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp") + "/streamcheck-trace-XXXXXX";
    const int fd = mkstemp(name.data());
    if (fd < 0) {
      *error = path + ": is a pipe, and no copy of it could be made in " + name.substr(0, name.rfind('/')) + ": " +
               std::strerror(errno) + " (set TMPDIR, or give the trace as a file)";
      return -1;
    }
    unlink(name.c_str());
    std::vector<char> buffer(1 << 20);
    while (true) {
      const size_t got = std::fread(buffer.data(), 1, buffer.size(), from);
      for (size_t done = 0; done < got;) {
        const ssize_t n = write(fd, buffer.data() + done, got - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          *error = path + ": is a pipe, and its copy in " + name.substr(0, name.rfind('/')) + " could not be written: " +
                   std::strerror(n < 0 ? errno : ENOSPC) + " (set TMPDIR, or give the trace as a file)";
          close(fd);
          return -1;
        }
        done += static_cast<size_t>(n);
      }
      if (got < buffer.size()) break;
    }
    if (std::ferror(from)) {
      *error = path + ": read error: " + std::strerror(errno);
      close(fd);
      return -1;
    }
    return fd;
  }

  std::mutex mutex_;
  std::map<std::string, int> copies_;
};

}  // namespace

std::unique_ptr<TraceSource> OpenTrace(const std::string& path, std::string* error) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return nullptr;
  }
  file = PipeCopies::Get().Seekable(file, path, error);
  if (file == nullptr) return nullptr;
  if (auto mapped = trace_internal::MakeMappedFileInput(file)) return OpenInput(std::move(mapped), path);
  return OpenInput(trace_internal::MakeFileInput(file), path);
}

std::unique_ptr<TraceSource> OpenTraceFromString(std::string contents, std::string name) {
  return OpenInput(trace_internal::MakeMemoryInput(std::move(contents)), std::move(name));
}

bool ParseTextTrace(std::string_view text, std::vector<TraceRecord>* records,
                    std::string* error) {
  auto source = trace_internal::MakeTextTraceReader(
      trace_internal::MakeMemoryInput(std::string(text)), "<text>");
  TraceRecord record;
  while (true) {
    switch (source->Next(&record)) {
      case TraceSource::Status::kRecord: records->push_back(record); break;
      case TraceSource::Status::kEnd: return true;
      case TraceSource::Status::kError: *error = source->error(); return false;
    }
  }
}

std::string FormatTextTrace(const std::vector<TraceRecord>& records) {
  std::string text;
  trace_internal::StringNames names;
  for (const TraceRecord& record : records) {
    trace_internal::FormatRecordLine(record, &names, &text);
  }
  return text;
}

std::unique_ptr<TraceSink> CreateTraceWriter(const std::string& path, TraceFormat format,
                                             std::string* error) {
  return format == TraceFormat::kBinary ? CreateBinaryTraceWriter(path, error)
                                        : CreateTextTraceWriter(path, error);
}

bool CopyTrace(TraceSource* in, TraceSink* out, std::string* error, const PathMap* paths) {
  TraceRecord record;
  while (true) {
    switch (in->Next(&record)) {
      case TraceSource::Status::kRecord:
        if (paths) paths->Apply(&record);
        if (!out->Append(record)) {
          *error = "record " + std::to_string(in->records_read() - 1) + ": " + out->error();
          out->Flush();
          return false;
        }
        break;
      case TraceSource::Status::kEnd:
        if (!out->Flush()) {
          *error = out->error();
          return false;
        }
        return true;
      case TraceSource::Status::kError:
        out->Flush();  // keep everything before the damage
        *error = in->error();
        return false;
    }
  }
}

bool ConvertTrace(const std::string& in_path, const std::string& out_path, TraceFormat to,
                  std::string* error, const PathMap* paths) {
  std::error_code ignored;
  if (std::filesystem::equivalent(in_path, out_path, ignored)) {
    *error = out_path + ": output would overwrite the input";
    return false;
  }
  auto in = OpenTrace(in_path, error);
  if (!in) return false;
  // Written beside OUT and renamed over it once complete: a write that fails
  // (a full disk) leaves an existing OUT as it was. Damage in IN still gives
  // OUT the records before it.
  const size_t slash = out_path.rfind('/');
  std::string temp = (slash == std::string::npos ? std::string() : out_path.substr(0, slash + 1)) + "." +
                     out_path.substr(slash == std::string::npos ? 0 : slash + 1) + ".XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    *error = out_path + ": cannot create a temporary file beside it: " + std::strerror(errno);
    return false;
  }
  ::close(fd);
  auto out = CreateTraceWriter(temp, to, error);
  if (!out) {
    ::unlink(temp.c_str());
    return false;
  }
  const bool copied = CopyTrace(in.get(), out.get(), error, paths);
  const bool closed = out->Close();
  if (!closed || !out->error().empty()) {  // the writing failed, not the input
    *error = out_path + ": " + (out->error().empty() ? *error : out->error()) + "; it was left as it was";
    ::unlink(temp.c_str());
    return false;
  }
  ::chmod(temp.c_str(), 0644);
  if (::rename(temp.c_str(), out_path.c_str()) != 0) {
    *error = out_path + ": cannot replace: " + std::strerror(errno);
    ::unlink(temp.c_str());
    return false;
  }
  return copied;
}

}  // namespace streamcheck
