#include "analyzer/lint_check.h"

#include <clang/AST/ASTContext.h>
#include <clang/Basic/SourceManager.h>

namespace streamcheck::lint {

SourcePoint CheckContext::Point(clang::SourceLocation loc) const {
  const clang::SourceManager& sm = ast_.getSourceManager();
  SourcePoint p;
  if (loc.isInvalid()) return p;
  const clang::SourceLocation spelled = sm.getFileLoc(loc);
  const clang::PresumedLoc presumed = sm.getPresumedLoc(spelled);
  if (presumed.isInvalid()) return p;
  p.file = presumed.getFilename();
  p.line = presumed.getLine();
  p.column = presumed.getColumn();
  bool invalid = false;
  const clang::FileID fid = sm.getFileID(spelled);
  const llvm::StringRef buffer = sm.getBufferData(fid, &invalid);
  if (!invalid) {
    const unsigned offset = sm.getFileOffset(spelled);
    // StringRef::rfind looks before its second argument: the newline ending the line above.
    const size_t start = buffer.rfind('\n', offset);
    const size_t begin = start == llvm::StringRef::npos ? 0 : start + 1;
    const size_t end = buffer.find('\n', offset);
    p.source_line = buffer.substr(begin, end == llvm::StringRef::npos ? llvm::StringRef::npos : end - begin).str();
  }
  return p;
}

LintDiagnostic CheckContext::Make(rules::RuleId rule, clang::SourceLocation at, std::string message) const {
  LintDiagnostic d;
  const rules::Rule& r = rules::Get(rule);
  d.rule = std::string(r.id);
  d.at = Point(at);
  d.message = message;
  d.finding.origin = FindingOrigin::kStatic;
  d.finding.rule = d.rule;
  d.finding.message = std::move(message);
  d.finding.fix = std::string(r.fix_hint);
  return d;
}

void CheckContext::Note(LintDiagnostic& d, clang::SourceLocation at, std::string message) const {
  d.notes.push_back({Point(at), std::move(message)});
}

void CheckContext::FixBefore(LintDiagnostic& d, clang::SourceLocation before, const std::string& code) const {
  SourcePoint p = Point(before);
  std::string indent;
  for (char c : p.source_line) {
    if (c != ' ' && c != '\t') break;
    indent += c;
  }
  p.column = static_cast<unsigned>(indent.size()) + 1;
  d.fixits.push_back({p, code + "\n" + indent});
}

void CheckContext::MoveIntoHelper(LintDiagnostic& d, clang::SourceLocation inner, clang::SourceLocation call,
                                  const std::string& helper) const {
  d.at = Point(inner);
  d.helper_own = true;
  Note(d, call, "in `" + helper + "`, called here");
}

std::string CheckContext::CommonCall(const std::string& context_a, const std::string& context_b) {
  size_t common = 0;  // contexts are call sites, each ending in '/'
  for (size_t i = 0; i < context_a.size() && i < context_b.size() && context_a[i] == context_b[i]; ++i) {
    if (context_a[i] == '/') common = i + 1;
  }
  return context_a.substr(0, common);
}

CheckContext::OwnCall CheckContext::OwnCallOf(const std::string& context_a, const std::string& context_b) const {
  OwnCall own;
  own.call = CommonCall(context_a, context_b);
  if (!own.call.empty()) own.helper = HelperCallOf(own.call);
  return own;
}

const CheckContext::HelperCall* CheckContext::HelperCallOf(const std::string& context) const {
  auto it = helper_calls_.find(context);
  return it != helper_calls_.end() ? &it->second : nullptr;
}

clang::SourceLocation CheckContext::LocIn(const std::string& call, const std::string& context,
                                          clang::SourceLocation inner) const {
  if (context.size() <= call.size()) return inner;
  const HelperCall* next = HelperCallOf(context.substr(0, context.find('/', call.size()) + 1));
  return next != nullptr ? next->site : inner;
}

void CheckContext::NoteHelper(LintDiagnostic& d, const std::string& helper, clang::SourceLocation inner,
                              clang::SourceLocation outer, const std::string& what) const {
  if (helper.empty() || inner == outer) return;
  Note(d, inner, what + " inside `" + helper + "`, called here");
}

std::string CheckContext::StreamName(const FlowState& s, const Symbol& stream) {
  if (stream.key == kLegacyStream) return "the legacy default stream";
  if (stream.key == kPerThreadStream) return "the per-thread default stream";
  std::string name = "stream `" + stream.text + "`";
  if (KindOf(s, stream.key) == StreamKind::kNonBlocking) name += " (non-blocking)";
  return name;
}

std::string CheckContext::StreamCode(const Symbol& stream) {
  const bool described = stream.text.rfind("the ", 0) == 0;  // "the legacy default stream"
  return described || stream.text.empty() ? "0" : stream.text;
}

std::string CheckContext::SyncCode(const Symbol& stream) {
  const std::string& text = stream.text;
  const bool code = stream.key != kLegacyStream && stream.key != kPerThreadStream && !text.empty() &&
                    text.find('`') == std::string::npos && text.rfind("the ", 0) != 0 && text.rfind("a ", 0) != 0;
  return code ? "cudaStreamSynchronize(" + text + ");" : "cudaDeviceSynchronize();";
}

FindingAccess CheckContext::DeviceSide(const DeviceOp& op, const BufferAccess& a, const FlowState& s,
                                       const std::string& role) const {
  FindingAccess f;
  f.role = role;
  f.op = op.what;
  f.api = op.api;
  f.stream = StreamName(s, op.stream);
  if (KindOf(s, op.stream.key) == StreamKind::kNonBlocking) f.stream_flags = 1;
  f.mode = a.mode;
  f.size = a.size_bytes.value_or(0);
  const SourcePoint p = Point(op.inner_loc.isValid() ? op.inner_loc : op.loc);
  f.stack.push_back(SourceFrame(op.helper, p.file, p.line, p.column));
  if (op.inner_loc.isValid() && op.inner_loc != op.loc) {
    const SourcePoint outer = Point(op.loc);
    f.stack.push_back(SourceFrame("", outer.file, outer.line, outer.column));
  }
  return f;
}

FindingAccess CheckContext::HostSide(clang::SourceLocation loc, AccessMode mode, const std::string& what,
                                     const std::string& role) const {
  FindingAccess f;
  f.role = role;
  f.op = what;
  f.on_host = true;
  f.mode = mode;
  f.stream = "host";
  const SourcePoint p = Point(loc);
  f.stack.push_back(SourceFrame("", p.file, p.line, p.column));
  return f;
}

void CheckContext::SetBuffer(LintDiagnostic& d, const BufferRef& ref, const FlowState& s) const {
  if (auto it = s.buffers.find(ref.base.key); it != s.buffers.end()) {
    d.finding.buffer.memory_kind = it->second.kind;
    d.finding.buffer.known_allocation = true;
    d.finding.buffer.allocated_by = it->second.allocated_by;
    if (it->second.allocated.isValid()) {
      const SourcePoint p = Point(it->second.allocated);
      d.finding.buffer.allocation_stack.push_back(SourceFrame("", p.file, p.line, p.column));
    }
  }
}

const std::vector<Conflict>& CheckContext::DeviceConflictsOf(const DeviceOp& later, const FlowState& s) {
  if (!conflicts_valid_) conflicts_ = Saturated() ? std::vector<Conflict>{} : DeviceConflicts(later, s, ops_);
  conflicts_valid_ = true;
  return conflicts_;
}

const std::vector<Conflict>& CheckContext::HostConflictsOf(const HostAccess& later, const FlowState& s) {
  if (!conflicts_valid_) conflicts_ = Saturated() ? std::vector<Conflict>{} : HostConflicts(later, s, ops_);
  conflicts_valid_ = true;
  return conflicts_;
}

void CheckContext::Emit(LintDiagnostic d) {
  // Two findings at one place (a helper's call site) differ by what they
  // say; a helper's own finding is one for all its calls (and for the
  // helper's analysis on its own), whatever names its callers gave.
  const std::string at = d.rule + "@" + d.at.file + ":" + std::to_string(d.at.line) + ":" + std::to_string(d.at.column);
  const std::string place = at + ":" + (d.notes.empty() ? "" : d.notes[0].at.file + std::to_string(d.notes[0].at.line));
  if (d.helper_own ? places_.count(place) != 0 : helper_places_.count(place) != 0) return;
  // Its first note may lie outside it (the clock read of the call before,
  // darknet's time_ongpu called seven times): the same words at the same
  // place inside the helper are still one finding.
  if (d.helper_own && !helper_findings_.insert(at + ":" + d.message).second) return;
  if (!emitted_.insert(place + ":" + d.message).second) return;
  places_.insert(place);
  if (d.helper_own) helper_places_.insert(place);
  std::string above;
  if (d.at.line > 1) {
    // The line above, for `// streamcheck: ignore[...]` on its own line.
    const clang::SourceManager& sm = ast_.getSourceManager();
    for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it) {
      (void)it;
      break;
    }
    auto file = sm.getFileManager().getOptionalFileRef(d.at.file);
    if (file) {
      const clang::FileID fid = sm.translateFile(*file);
      if (fid.isValid()) {
        bool invalid = false;
        const llvm::StringRef buffer = sm.getBufferData(fid, &invalid);
        if (!invalid) {
          size_t begin = 0;
          for (unsigned line = 1; line + 1 < d.at.line && begin != llvm::StringRef::npos; ++line) {
            begin = buffer.find('\n', begin);
            if (begin != llvm::StringRef::npos) ++begin;
          }
          if (begin != llvm::StringRef::npos) {
            const size_t end = buffer.find('\n', begin);
            above = buffer.substr(begin, end == llvm::StringRef::npos ? llvm::StringRef::npos : end - begin).str();
          }
        }
      }
    }
  }
  if (SuppressedByComment(d.at.source_line, above, d.rule)) return;
  if (max_findings_ > 0 && function_findings_ >= max_findings_) {
    dropped_ = true;
    return;
  }
  ++function_findings_;
  std::string fingerprint = d.rule + ":" + std::to_string(static_cast<int>(d.finding.kind));
  for (const FindingAccess& a : d.finding.accesses) {
    if (!a.stack.empty()) fingerprint += "|" + a.stack[0].file + ":" + std::to_string(a.stack[0].line);
  }
  d.finding.fingerprint = fingerprint;
  out_->push_back(std::move(d));
}

}  // namespace streamcheck::lint
