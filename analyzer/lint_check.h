// The check interface, clang-tidy style: the function analyzer walks each
// host function once the model has converged and calls every check's hooks
// in program order with the state before the event; a check decides whether
// the event breaks its rule and reports through CheckContext.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "analyzer/diagnostic.h"
#include "analyzer/stream_state.h"
#include "rules/catalogue.h"

namespace clang {
class ASTContext;
}

namespace streamcheck::lint {

// What the end of a local array's or std::vector's scope is called in a FreeEvent.
inline constexpr const char* kEndOfScope = "the end of its scope";

struct FreeEvent {
  BufferRef ref;
  std::string api;  // cudaFreeAsync, free, delete[], kEndOfScope
  Symbol stream;    // empty for host frees
  clang::SourceLocation loc;
  clang::SourceLocation inner_loc;  // inside an inlined helper; equal to loc when not inlined
  std::string context;              // the helper's call-site chain; "" at the top
};

struct EventWait {
  Symbol event;
  Symbol stream;    // empty when the host waits (cudaEventSynchronize)
  std::string api;
  clang::SourceLocation loc;
};

struct ClockRead {
  std::string api;
  clang::SourceLocation loc;
  clang::SourceLocation inner_loc;  // inside the inlined helper; equal to loc when not inlined
  std::string helper;
  std::string context;  // the inlined helper's call-site chain; "" at the top
};

struct ElapsedTime {
  Symbol start, stop;
  clang::SourceLocation loc;
};

class CheckContext {
 public:
  CheckContext(clang::ASTContext& ast, const OpTable& ops, std::vector<LintDiagnostic>* out)
      : ast_(ast), ops_(ops), out_(out) {}

  const OpTable& ops() const { return ops_; }
  clang::ASTContext& ast() const { return ast_; }
  SourcePoint Point(clang::SourceLocation loc) const;

  // A diagnostic of `rule` at `at`, with the Finding's common fields filled.
  LintDiagnostic Make(rules::RuleId rule, clang::SourceLocation at, std::string message) const;
  void Note(LintDiagnostic& d, clang::SourceLocation at, std::string message) const;
  // Inserts `code` on a new line before the statement at `before`, indented like it.
  void FixBefore(LintDiagnostic& d, clang::SourceLocation before, const std::string& code) const;
  // A finding whose sides all lie in one call of an inlined helper is the
  // helper's own: reported at `inner`, the helper's line, once for all its
  // calls, with a note at the call that showed it (Emit keys it without the
  // message, which names the caller's arguments).
  void MoveIntoHelper(LintDiagnostic& d, clang::SourceLocation inner, clang::SourceLocation call,
                      const std::string& helper) const;
  // The deepest inlined helper call both contexts lie in ("" for none): its
  // context, a prefix of each. Equal contexts are their own common call.
  static std::string CommonCall(const std::string& context_a, const std::string& context_b);
  // An inlined helper call (TransferWalker::Inline): where it sits in its
  // caller's body, and the helper's name.
  struct HelperCall {
    clang::SourceLocation site;
    std::string helper;
  };
  void NoteHelperCall(const std::string& context, clang::SourceLocation site, const std::string& helper) {
    helper_calls_[context] = HelperCall{site, helper};
  }
  const HelperCall* HelperCallOf(const std::string& context) const;
  // Where something at `inner` of `context` sits in the body of the helper
  // call `call`, a prefix of `context`: `inner` itself in that call, else the
  // call of the next helper down.
  clang::SourceLocation LocIn(const std::string& call, const std::string& context, clang::SourceLocation inner) const;
  // The deepest inlined helper call two sides of a finding lie in, the two
  // perhaps in helpers it calls in turn: the finding is that helper's, told
  // in its own lines (At) and once for all its calls (MoveIntoHelper).
  struct OwnCall {
    std::string call;                  // its context ("" for none)
    const HelperCall* helper = nullptr;  // none: the sides meet only in the analysed function
    explicit operator bool() const { return helper != nullptr; }
  };
  OwnCall OwnCallOf(const std::string& context_a, const std::string& context_b) const;
  // Where something at `inner` of `context` is told: in the own call's body
  // when it lies in that call (a finding's sides always do; where its buffer
  // was allocated or its timed region began may not), else at `outer`, its
  // place in the analysed function.
  clang::SourceLocation At(const OwnCall& own, const std::string& context, clang::SourceLocation inner,
                           clang::SourceLocation outer) const {
    const bool inside = own && context.compare(0, own.call.size(), own.call) == 0;
    return inside ? LocIn(own.call, context, inner) : outer;
  }
  // Notes pointing into an inlined helper, when the op came from one.
  void NoteHelper(LintDiagnostic& d, const std::string& helper, clang::SourceLocation inner,
                  clang::SourceLocation outer, const std::string& what) const;

  FindingAccess DeviceSide(const DeviceOp& op, const BufferAccess& a, const FlowState& s,
                           const std::string& role) const;
  FindingAccess HostSide(clang::SourceLocation loc, AccessMode mode, const std::string& what,
                         const std::string& role) const;
  void SetBuffer(LintDiagnostic& d, const BufferRef& ref, const FlowState& s) const;
  // "stream `s1` (non-blocking)", "the legacy default stream"
  static std::string StreamName(const FlowState& s, const Symbol& stream);
  // The stream as an argument in suggested code: `s1`, or `0` for a default
  // stream named by an omitted or zero handle.
  static std::string StreamCode(const Symbol& stream);
  // The call that makes the host wait for `stream`'s work, as a fix-it:
  // `cudaStreamSynchronize(s);`, or `cudaDeviceSynchronize();` for a default
  // stream or one the code does not name (a stream a helper of another file
  // made: "a stream of `push`" is no code).
  static std::string SyncCode(const Symbol& stream);

  // Applies inline suppressions and drops duplicates (loops and inlined
  // helpers reach one statement several times).
  void Emit(LintDiagnostic d);
  // The findings of one analysed function: at most `max` are kept (0: no
  // limit); EndFunction says how many more there were.
  void BeginFunction(int max) {
    max_findings_ = max;
    function_findings_ = 0;
    dropped_ = false;
  }
  bool EndFunction() const { return dropped_; }
  // The function's findings are at their limit: checks stop looking for more
  // (conflicts can number millions) and the function gets a budget note.
  bool Saturated() {
    if (max_findings_ <= 0 || function_findings_ < max_findings_) return false;
    dropped_ = true;
    return true;
  }
  // The conflicts of the event being checked, computed once for all checks.
  void NewEvent() { conflicts_valid_ = false; }
  const std::vector<Conflict>& DeviceConflictsOf(const DeviceOp& later, const FlowState& s);
  const std::vector<Conflict>& HostConflictsOf(const HostAccess& later, const FlowState& s);

 private:
  clang::ASTContext& ast_;
  const OpTable& ops_;
  std::vector<LintDiagnostic>* out_;
  std::set<std::string> emitted_;
  // Rule, place and first note of what was emitted, and of what was emitted
  // as a helper's own (MoveIntoHelper): one finding per place for a helper.
  std::set<std::string> places_, helper_places_;
  std::set<std::string> helper_findings_;  // a helper's own: rule, place and words
  std::map<std::string, HelperCall> helper_calls_;
  int max_findings_ = 0;
  int function_findings_ = 0;
  bool dropped_ = false;
  bool conflicts_valid_ = false;
  std::vector<Conflict> conflicts_;
};

class LintCheck {
 public:
  explicit LintCheck(rules::RuleId rule) : rule_(rule) {}
  virtual ~LintCheck() = default;
  rules::RuleId rule() const { return rule_; }

  virtual void OnDeviceOp(const DeviceOp& op, const FlowState& before, CheckContext& ctx) {}
  virtual void OnHostAccess(const HostAccess& access, const FlowState& before, CheckContext& ctx) {}
  virtual void OnFree(const FreeEvent& free, const FlowState& before, CheckContext& ctx) {}
  virtual void OnEventWait(const EventWait& wait, const FlowState& before, CheckContext& ctx) {}
  virtual void OnHostClock(const ClockRead& read, const FlowState& before, CheckContext& ctx) {}
  virtual void OnElapsedTime(const ElapsedTime& elapsed, const FlowState& before, CheckContext& ctx) {}

 private:
  rules::RuleId rule_;
};

// Every check, in catalogue order (checks/all_checks.cpp).
std::vector<std::unique_ptr<LintCheck>> MakeAllChecks();

}  // namespace streamcheck::lint
