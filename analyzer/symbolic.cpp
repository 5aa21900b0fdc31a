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
  return e == nullptr ? nullptr : e->IgnoreParenCasts();
}

}  // namespace

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

Symbol SymbolOfDecl(const clang::ValueDecl* d, const Bindings& b) {
  if (auto it = b.values.find(d); it != b.values.end()) return it->second;
  return {DeclKey(d), d->getNameAsString()};
}

Symbol SymbolOf(const clang::Expr* e, const Bindings& b, const clang::ASTContext& ctx) {
  if (e == nullptr) return {};
  e = Strip(e);
  if (std::optional<int64_t> c = ConstantOf(e, ctx)) {
    return {"#" + std::to_string(*c), std::to_string(*c)};
  }
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    return SymbolOfDecl(ref->getDecl(), b);
  }
  if (const auto* sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(e)) {
    const Symbol base = SymbolOf(sub->getBase(), b, ctx);
    const Symbol idx = SymbolOf(sub->getIdx(), b, ctx);
    if (base.empty() || idx.empty()) return {};
    return {base.key + "[" + idx.key + "]", base.text + "[" + idx.text + "]"};
  }
  if (const auto* m = llvm::dyn_cast<clang::MemberExpr>(e)) {
    const Symbol base = SymbolOf(m->getBase(), b, ctx);
    if (base.empty()) return {};
    const std::string name = m->getMemberDecl()->getNameAsString();
    // `p->f` and `(*p).f` and `x.f` with p = &x all name one field once
    // address-of is folded below.
    return {base.key + "." + name, base.text + (m->isArrow() ? "->" : ".") + name};
  }
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    const Symbol inner = SymbolOf(u->getSubExpr(), b, ctx);
    if (inner.empty()) return {};
    if (u->getOpcode() == clang::UO_AddrOf) {
      return {inner.key.rfind("*", 0) == 0 ? inner.key.substr(1) : "&" + inner.key, "&" + inner.text};
    }
    if (u->getOpcode() == clang::UO_Deref) {
      return {inner.key.rfind("&", 0) == 0 ? inner.key.substr(1) : "*" + inner.key, "*" + inner.text};
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
    const std::optional<int64_t> c = ConstantOf(off, ctx);
    const std::optional<int64_t> size = element_bytes(Strip(ptr)->getType());
    if (c && size && r.offset_bytes) {
      r.offset_bytes = *r.offset_bytes + (sign.empty() ? 1 : -1) * *c * *size;
    } else {
      r.offset_bytes.reset();
    }
    if (c && *c == 0) {
      // `p + 0` is `p`.
    }
    return r;
  }
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e); u != nullptr && u->getOpcode() == clang::UO_AddrOf) {
    const clang::Expr* inner = Strip(u->getSubExpr());
    if (const auto* sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(inner)) {
      BufferRef r = BufferOf(sub->getBase(), b, ctx);
      if (!r.valid()) return r;
      const std::optional<int64_t> c = ConstantOf(sub->getIdx(), ctx);
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
  if (const auto* call = llvm::dyn_cast<clang::CXXMemberCallExpr>(e)) {
    // std::vector::data() and friends: the container is the buffer.
    if (const clang::CXXMethodDecl* m = call->getMethodDecl();
        m != nullptr && m->getIdentifier() != nullptr && (m->getName() == "data" || m->getName() == "get")) {
      BufferRef r;
      r.base = SymbolOf(call->getImplicitObjectArgument(), b, ctx);
      r.offset_bytes = 0;
      return r;
    }
    return {};
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
