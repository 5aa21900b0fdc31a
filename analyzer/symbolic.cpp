#include "analyzer/symbolic.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

#include <cstdio>

namespace streamcheck::lint {
namespace {

std::string DeclKey(const clang::ValueDecl* d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "v%p", static_cast<const void*>(d));
  return buf;
}

const clang::Expr* Strip(const clang::Expr* e) {
  while (e != nullptr) {
    e = e->IgnoreParenCasts();
    // A default argument stands for its expression (`float** out = NULL`);
    // an implicit copy of an iterator or a temporary for the value copied.
    if (const auto* defaulted = llvm::dyn_cast<clang::CXXDefaultArgExpr>(e)) {
      e = defaulted->getExpr();
    } else if (const auto* copy = llvm::dyn_cast<clang::CXXConstructExpr>(e);
               copy != nullptr && copy->getNumArgs() == 1 && copy->getConstructor()->isCopyOrMoveConstructor()) {
      e = copy->getArg(0);
    } else if (const auto* temporary = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(e)) {
      e = temporary->getSubExpr();
    } else if (const auto* bound = llvm::dyn_cast<clang::CXXBindTemporaryExpr>(e)) {
      e = bound->getSubExpr();
    } else if (const auto* cleanups = llvm::dyn_cast<clang::ExprWithCleanups>(e)) {
      e = cleanups->getSubExpr();
    } else {
      break;
    }
  }
  return e;
}

// Whether a loop counter appears in the expression (`i`, `c % 3`, `2 * i + 1`).
bool MentionsCounter(const clang::Stmt* s, const LoopCounters& counters) {
  if (s == nullptr) return false;
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
    const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
    return var != nullptr && counters.count(var) != 0;
  }
  for (const clang::Stmt* child : s->children()) {
    if (MentionsCounter(child, counters)) return true;
  }
  return false;
}

// A call to a method or function of the main file whose body is one
// `return <expr>;` (a getter, `operator cudaStream_t()`): that expression,
// and the bindings of `this` and the parameters at the call.
const clang::Expr* GetterResult(const clang::CallExpr* call, const Bindings& b, const clang::ASTContext& ctx,
                                Bindings* inner) {
  const clang::FunctionDecl* fd = call->getDirectCallee();
  const clang::FunctionDecl* def = fd != nullptr ? fd->getDefinition() : nullptr;
  if (def == nullptr || b.getter_depth >= 3) return nullptr;
  if (!IsProjectCode(def, ctx)) return nullptr;
  const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(def->getBody());
  const auto* ret = body != nullptr && body->size() == 1 ? llvm::dyn_cast<clang::ReturnStmt>(body->body_front()) : nullptr;
  if (ret == nullptr || ret->getRetValue() == nullptr) return nullptr;
  inner->counters = b.counters;
  inner->getter_depth = b.getter_depth + 1;
  unsigned first_arg = 0;
  if (const auto* member = llvm::dyn_cast<clang::CXXMemberCallExpr>(call)) {
    inner->this_object = ObjectOf(member->getImplicitObjectArgument(), b, ctx);
  } else if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call);
             op != nullptr && llvm::isa<clang::CXXMethodDecl>(def) && op->getNumArgs() > 0) {
    inner->this_object = ObjectOf(op->getArg(0), b, ctx);
    first_arg = 1;
  }
  for (unsigned i = 0; i < def->getNumParams() && i + first_arg < call->getNumArgs(); ++i) {
    const Symbol v = SymbolOf(call->getArg(i + first_arg), b, ctx);
    if (!v.empty()) inner->values[def->getParamDecl(i)] = v;
  }
  return ret->getRetValue();
}

}  // namespace

const clang::Expr* StripTemporaries(const clang::Expr* e) { return Strip(e); }

bool IsProjectCode(const clang::FunctionDecl* fd, const clang::ASTContext& ctx) {
  const clang::SourceManager& sm = ctx.getSourceManager();
  const clang::SourceLocation loc = sm.getExpansionLoc(fd->getLocation());
  return loc.isValid() && (sm.isInMainFile(loc) || !sm.isInSystemHeader(loc));
}

std::optional<std::string> ConditionKey(const clang::Expr* e, const Bindings& b, const clang::ASTContext& ctx,
                                        std::vector<std::string>* vars, const QueryValues* queries) {
  if (e == nullptr) return std::nullopt;
  e = e->IgnoreParenImpCasts();
  if (std::optional<int64_t> c = ConstantOf(e, ctx)) return "#" + std::to_string(*c);
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    // A volatile may change under the analysis (a signal handler's flag).
    if (!llvm::isa<clang::VarDecl>(ref->getDecl()) || ref->getType().isVolatileQualified()) return std::nullopt;
    const std::string key = SymbolOfDecl(ref->getDecl(), b).key;
    if (queries != nullptr) {
      if (auto q = queries->find(key); q != queries->end()) {
        vars->insert(vars->end(), q->second.vars.begin(), q->second.vars.end());
        return q->second.key;
      }
    }
    vars->push_back(key);
    return key;
  }
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e); u != nullptr && u->getOpcode() == clang::UO_LNot) {
    const std::optional<std::string> inner = ConditionKey(u->getSubExpr(), b, ctx, vars, queries);
    return inner ? std::optional<std::string>("!" + *inner) : std::nullopt;
  }
  const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(e);
  if (bin == nullptr || bin->isAssignmentOp() || bin->isCommaOp()) return std::nullopt;
  const std::optional<std::string> l = ConditionKey(bin->getLHS(), b, ctx, vars, queries);
  const std::optional<std::string> r = l ? ConditionKey(bin->getRHS(), b, ctx, vars, queries) : std::nullopt;
  if (!r) return std::nullopt;
  return "(" + *l + bin->getOpcodeStr().str() + *r + ")";
}

std::string TextOf(const clang::Expr* e, const clang::ASTContext& ctx) {
  const clang::SourceManager& sm = ctx.getSourceManager();
  const clang::CharSourceRange range = clang::CharSourceRange::getTokenRange(
      sm.getExpansionRange(e->getSourceRange()).getAsRange());
  std::string text =
      clang::Lexer::getSourceText(range, sm, ctx.getLangOpts()).str();
  if (text.empty() || text.size() > 80) {
    std::string s;
    llvm::raw_string_ostream os(s);
    e->printPretty(os, nullptr, ctx.getPrintingPolicy());
    text = os.str();
  }
  return text;
}

std::optional<int64_t> ConstantOf(const clang::Expr* e, const clang::ASTContext& ctx) {
  if (e == nullptr || e->isValueDependent() || e->isTypeDependent()) return std::nullopt;
  const clang::Expr* s = Strip(e);
  if (llvm::isa<clang::CXXNullPtrLiteralExpr>(s) || llvm::isa<clang::GNUNullExpr>(s)) return 0;
  clang::Expr::EvalResult result;
  if (s->EvaluateAsInt(result, ctx)) return result.Val.getInt().getExtValue();
  return std::nullopt;
}

std::string AnyElementKey(const std::string& key) {
  if (key.empty() || key.back() != ']') return {};
  const size_t open = key.rfind('[');
  return open == std::string::npos ? std::string() : key.substr(0, open) + "[*]";
}

Symbol ObjectOf(const clang::Expr* object, const Bindings& b, const clang::ASTContext& ctx) {
  const Symbol s = SymbolOf(object, b, ctx);
  if (s.empty() || Strip(object)->getType()->isPointerType()) return s;
  // `obj.f()`: this is &obj; `(*p).f()`: this is p.
  if (s.key.rfind("*", 0) == 0) return {s.key.substr(1), s.text.rfind("*", 0) == 0 ? s.text.substr(1) : s.text};
  return {"&" + s.key, "&" + s.text};
}

Symbol SymbolOfDecl(const clang::ValueDecl* d, const Bindings& b) {
  if (auto it = b.values.find(d); it != b.values.end()) return it->second;
  const auto* var = llvm::dyn_cast<clang::VarDecl>(d);
  if (!b.context.empty() && var != nullptr && var->hasLocalStorage() &&
      static_cast<const void*>(var->getDeclContext()) == b.function) {
    return {DeclKey(d) + "@" + b.context, d->getNameAsString()};
  }
  return {DeclKey(d), d->getNameAsString()};
}

std::optional<int64_t> ValueOf(const clang::Expr* e, const Bindings& b, const clang::ASTContext& ctx) {
  if (e == nullptr) return std::nullopt;
  if (std::optional<int64_t> c = ConstantOf(e, ctx)) return c;
  e = Strip(e);
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    auto it = b.values.find(ref->getDecl());
    if (it == b.values.end() || it->second.key.size() < 2 || it->second.key[0] != '#') return std::nullopt;
    const std::string digits = it->second.key.substr(1);
    if (digits.find_first_not_of("-0123456789") != std::string::npos) return std::nullopt;
    return std::stoll(digits);
  }
  const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(e);
  if (bin == nullptr) return std::nullopt;
  const std::optional<int64_t> l = ValueOf(bin->getLHS(), b, ctx);
  const std::optional<int64_t> r = ValueOf(bin->getRHS(), b, ctx);
  if (!l || !r) return std::nullopt;
  switch (bin->getOpcode()) {
    case clang::BO_Add: return *l + *r;
    case clang::BO_Sub: return *l - *r;
    case clang::BO_Mul: return *l * *r;
    case clang::BO_Div: return *r != 0 ? std::optional<int64_t>(*l / *r) : std::nullopt;
    case clang::BO_EQ: return *l == *r;
    case clang::BO_NE: return *l != *r;
    case clang::BO_LT: return *l < *r;
    case clang::BO_LE: return *l <= *r;
    case clang::BO_GT: return *l > *r;
    case clang::BO_GE: return *l >= *r;
    case clang::BO_LAnd: return *l && *r;
    case clang::BO_LOr: return *l || *r;
    default: return std::nullopt;
  }
}

Symbol SymbolOf(const clang::Expr* e, const Bindings& b, const clang::ASTContext& ctx) {
  if (e == nullptr) return {};
  e = Strip(e);
  if (std::optional<int64_t> c = ValueOf(e, b, ctx)) {
    return {"#" + std::to_string(*c), std::to_string(*c)};
  }
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    return SymbolOfDecl(ref->getDecl(), b);
  }
  // `racy ? 0 : cudaStreamLegacy` with the condition known (a constant, a bound flag).
  if (const auto* c = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
    const std::optional<int64_t> cond = ValueOf(c->getCond(), b, ctx);
    return cond ? SymbolOf(*cond != 0 ? c->getTrueExpr() : c->getFalseExpr(), b, ctx) : Symbol{};
  }
  if (llvm::isa<clang::CXXThisExpr>(e)) return b.this_object.empty() ? Symbol{"this", "this"} : b.this_object;
  // `a[i]` on an array or a std::vector.
  const clang::Expr* array = nullptr;
  const clang::Expr* index = nullptr;
  if (const auto* sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(e)) {
    array = sub->getBase();
    index = sub->getIdx();
  } else if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e);
             op != nullptr && op->getOperator() == clang::OO_Subscript && op->getNumArgs() == 2) {
    array = op->getArg(0);
    index = op->getArg(1);
  }
  if (array != nullptr) {
    const Symbol base = SymbolOf(array, b, ctx);
    if (base.empty()) return {};
    if (b.counters != nullptr && MentionsCounter(index, *b.counters)) {
      return {base.key + "[*]", base.text + "[" + TextOf(index, ctx) + "]"};
    }
    const Symbol idx = SymbolOf(index, b, ctx);
    if (idx.empty()) return {};
    return {base.key + "[" + idx.key + "]", base.text + "[" + idx.text + "]"};
  }
  if (const auto* m = llvm::dyn_cast<clang::MemberExpr>(e)) {
    const Symbol base = SymbolOf(m->getBase(), b, ctx);
    if (base.empty()) return {};
    const std::string name = m->getMemberDecl()->getNameAsString();
    if (!m->isArrow()) return {base.key + "." + name, base.text + "." + name};
    // `p->f` is `(*p).f`; with p bound to the caller's `&x` (or `this` to
    // `&obj`) it is `x.f`, the key the caller's own `x.f` has.
    if (base.key.rfind("&", 0) == 0) {
      const std::string object = base.text.rfind("&", 0) == 0 ? base.text.substr(1) : base.text;
      return {base.key.substr(1) + "." + name, object + "." + name};
    }
    const bool implicit_this = m->isImplicitAccess();
    return {"*" + base.key + "." + name, implicit_this ? name : base.text + "->" + name};
  }
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(e)) {
    Bindings inner;
    const clang::Expr* result = GetterResult(call, b, ctx, &inner);
    return result != nullptr ? SymbolOf(result, inner, ctx) : Symbol{};
  }
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    const Symbol inner = SymbolOf(u->getSubExpr(), b, ctx);
    if (inner.empty()) return {};
    if (u->getOpcode() == clang::UO_AddrOf) {
      return {inner.key.rfind("*", 0) == 0 ? inner.key.substr(1) : "&" + inner.key, "&" + inner.text};
    }
    if (u->getOpcode() == clang::UO_Deref) {
      if (inner.key.rfind("&", 0) == 0) {
        // `*p` with p bound to `&x` is x, and reads so.
        const bool address = inner.text.rfind("&", 0) == 0;
        return {inner.key.substr(1), address ? inner.text.substr(1) : "*" + inner.text};
      }
      return {"*" + inner.key, "*" + inner.text};
    }
  }
  if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    const Symbol l = SymbolOf(bin->getLHS(), b, ctx);
    const Symbol r = SymbolOf(bin->getRHS(), b, ctx);
    if (l.empty() || r.empty()) return {};
    const std::string op = bin->getOpcodeStr().str();
    return {"(" + l.key + op + r.key + ")", l.text + " " + op + " " + r.text};
  }
  // Anything else (a call, a conditional) has no stable identity.
  return {};
}

BufferRef BufferOf(const clang::Expr* e, const Bindings& b, const clang::ASTContext& ctx) {
  if (e == nullptr) return {};
  e = Strip(e);
  const auto element_bytes = [&](clang::QualType pointer) -> std::optional<int64_t> {
    clang::QualType pointee = pointer->getPointeeOrArrayElementType()->getCanonicalTypeUnqualified();
    if (pointee.isNull() || pointee->isIncompleteType() || pointee->isVoidType() || pointee->isDependentType()) {
      return std::nullopt;
    }
    return ctx.getTypeSizeInChars(pointee).getQuantity();
  };
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    if (auto it = b.buffers.find(ref->getDecl()); it != b.buffers.end()) return it->second;
    BufferRef r;
    r.base = SymbolOf(ref, b, ctx);
    r.offset_bytes = 0;
    return r;
  }
  if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(e);
      bin != nullptr && (bin->getOpcode() == clang::BO_Add || bin->getOpcode() == clang::BO_Sub)) {
    const clang::Expr* ptr = bin->getLHS();
    const clang::Expr* off = bin->getRHS();
    if (!ptr->getType()->isPointerType() && !ptr->getType()->isArrayType()) std::swap(ptr, off);
    if (!ptr->getType()->isPointerType() && !ptr->getType()->isArrayType()) return {};
    BufferRef r = BufferOf(ptr, b, ctx);
    if (!r.valid()) return r;
    const Symbol o = SymbolOf(off, b, ctx);
    const std::string sign = bin->getOpcode() == clang::BO_Sub ? "-" : "";
    r.offset_key += (r.offset_key.empty() ? "" : "+") + sign + (o.empty() ? "?" + TextOf(off, ctx) : o.key);
    r.offset_text += (r.offset_text.empty() ? "" : " + ") + sign + TextOf(off, ctx);
    const std::optional<int64_t> c = ValueOf(off, b, ctx);
    const std::optional<int64_t> size = element_bytes(Strip(ptr)->getType());
    if (c && size && r.offset_bytes) {
      r.offset_bytes = *r.offset_bytes + (sign.empty() ? 1 : -1) * *c * *size;
    } else {
      r.offset_bytes.reset();
    }
    return r;
  }
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e); u != nullptr && u->getOpcode() == clang::UO_AddrOf) {
    const clang::Expr* inner = Strip(u->getSubExpr());
    if (const auto* sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(inner)) {
      BufferRef r = BufferOf(sub->getBase(), b, ctx);
      if (!r.valid()) return r;
      const std::optional<int64_t> c = ValueOf(sub->getIdx(), b, ctx);
      if (c && *c == 0) return r;
      const Symbol o = SymbolOf(sub->getIdx(), b, ctx);
      r.offset_key += (r.offset_key.empty() ? "" : "+") + (o.empty() ? "?" + TextOf(sub->getIdx(), ctx) : o.key);
      r.offset_text += (r.offset_text.empty() ? "" : " + ") + TextOf(sub->getIdx(), ctx);
      const std::optional<int64_t> size = element_bytes(Strip(sub->getBase())->getType());
      if (c && size && r.offset_bytes) {
        r.offset_bytes = *r.offset_bytes + *c * *size;
      } else {
        r.offset_bytes.reset();
      }
      return r;
    }
    // &x of a scalar or struct: the object itself.
    BufferRef r;
    r.base = SymbolOf(inner, b, ctx);
    r.offset_bytes = 0;
    return r;
  }
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(e)) {
    Bindings inner;
    if (const clang::Expr* result = GetterResult(call, b, ctx, &inner)) return BufferOf(result, inner, ctx);
  }
  if (const auto* call = llvm::dyn_cast<clang::CXXMemberCallExpr>(e)) {
    // std::vector::data(), begin() and friends: the container is the buffer.
    if (const clang::CXXMethodDecl* m = call->getMethodDecl(); m != nullptr && m->getIdentifier() != nullptr) {
      const llvm::StringRef name = m->getName();
      if (name == "data" || name == "get" || name == "begin" || name == "cbegin") {
        BufferRef r;
        r.base = SymbolOf(call->getImplicitObjectArgument(), b, ctx);
        r.offset_bytes = 0;
        return r;
      }
    }
    return {};
  }
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(e); call != nullptr && call->getNumArgs() == 1) {
    // std::begin(a), std::data(v).
    const clang::FunctionDecl* fd = call->getDirectCallee();
    if (fd != nullptr && fd->getIdentifier() != nullptr && fd->isInStdNamespace() &&
        (fd->getName() == "begin" || fd->getName() == "cbegin" || fd->getName() == "data")) {
      return BufferOf(call->getArg(0), b, ctx);
    }
    return {};
  }
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e); u != nullptr && u->isIncrementDecrementOp()) {
    // `*p++` reads where p pointed before the step; `*++p` one element on.
    BufferRef r = BufferOf(u->getSubExpr(), b, ctx);
    if (!r.valid() || u->isPostfix()) return r;
    r.offset_key += (r.offset_key.empty() ? "" : "+") + std::string(u->isIncrementOp() ? "#1" : "-#1");
    r.offset_text += (r.offset_text.empty() ? "" : " + ") + std::string(u->isIncrementOp() ? "1" : "-1");
    const std::optional<int64_t> size = element_bytes(Strip(u->getSubExpr())->getType());
    if (size && r.offset_bytes) {
      r.offset_bytes = *r.offset_bytes + (u->isIncrementOp() ? *size : -*size);
    } else {
      r.offset_bytes.reset();
    }
    return r;
  }
  if (llvm::isa<clang::MemberExpr>(e) || llvm::isa<clang::ArraySubscriptExpr>(e)) {
    // A pointer stored in a struct field or an array of pointers.
    BufferRef r;
    r.base = SymbolOf(e, b, ctx);
    r.offset_bytes = 0;
    return r;
  }
  return {};
}

}  // namespace streamcheck::lint
