#include "analyzer/known_values.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

namespace streamcheck::lint {
namespace {

bool IsScalar(clang::QualType t) {
  return t->isIntegralOrEnumerationType() || t->isBooleanType() || t->isPointerType() || t->isNullPtrType();
}

// A known value read through a name: the variable's own, or for a pointer
// that aliases another with no offset (`loader->targets` holding what the
// allocator returned), the other's.
std::optional<KnownValue> LookUp(const Symbol& name, const KnownScope& scope) {
  if (name.empty()) return std::nullopt;
  if (auto it = scope.known.find(name.key); it != scope.known.end()) return it->second;
  auto alias = scope.aliases.find(name.key);
  if (alias == scope.aliases.end() || !alias->second.offset_key.empty()) return std::nullopt;
  if (auto it = scope.known.find(alias->second.base.key); it != scope.known.end()) return it->second;
  return std::nullopt;
}

std::optional<bool> Truth(const std::optional<KnownValue>& v) {
  if (!v) return std::nullopt;
  return v->value ? *v->value != 0 : true;
}

std::optional<KnownValue> Bool(bool b) { return KnownValue{b ? 1 : 0}; }

// `x == y` or `x != y` where one side is exactly 0 and the other not zero.
std::optional<KnownValue> CompareWithNonZero(const KnownValue& l, const KnownValue& r, clang::BinaryOperatorKind op) {
  const bool l_zero = l.value && *l.value == 0;
  const bool r_zero = r.value && *r.value == 0;
  if (!((l_zero && !r.value) || (r_zero && !l.value))) return std::nullopt;
  if (op == clang::BO_EQ) return Bool(false);
  if (op == clang::BO_NE) return Bool(true);
  return std::nullopt;
}

std::optional<KnownValue> Evaluate(const clang::Expr* e, const KnownScope& scope, int depth) {
  if (e == nullptr || depth > 16) return std::nullopt;
  if (const std::optional<int64_t> c = ValueOf(e, scope.bindings, scope.ast)) return KnownValue{*c};
  e = e->IgnoreParenCasts();
  if (e->getType()->isPointerType() || e->getType()->isNullPtrType()) {
    if (e->isNullPointerConstant(const_cast<clang::ASTContext&>(scope.ast),
                                 clang::Expr::NPC_ValueDependentIsNotNull) != clang::Expr::NPCK_NotNull) {
      return KnownValue{0};
    }
  }
  // A helper's pointer parameter bound to the caller's `&x` (an optional
  // out-parameter given) is never null.
  if (e->getType()->isPointerType() && SymbolOf(e, scope.bindings, scope.ast).key.rfind("&", 0) == 0) {
    return KnownValue{};
  }
  if (llvm::isa<clang::DeclRefExpr>(e) || llvm::isa<clang::MemberExpr>(e)) {
    if (!IsScalar(e->getType())) return std::nullopt;
    return LookUp(SymbolOf(e, scope.bindings, scope.ast), scope);
  }
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    const std::optional<KnownValue> v = Evaluate(u->getSubExpr(), scope, depth + 1);
    if (!v) return std::nullopt;
    if (u->getOpcode() == clang::UO_LNot) return Bool(!*Truth(v));
    if (!v->value) return std::nullopt;
    if (u->getOpcode() == clang::UO_Minus) return KnownValue{-*v->value};
    if (u->getOpcode() == clang::UO_Plus) return v;
    return std::nullopt;
  }
  const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e);
  if (b == nullptr) return std::nullopt;
  const std::optional<KnownValue> l = Evaluate(b->getLHS(), scope, depth + 1);
  // `a && b`, `a || b`: one side may decide alone.
  if (b->getOpcode() == clang::BO_LAnd || b->getOpcode() == clang::BO_LOr) {
    const bool decides = b->getOpcode() == clang::BO_LOr;  // the value of one side that decides the whole
    if (l && *Truth(l) == decides) return Bool(decides);
    const std::optional<KnownValue> r = Evaluate(b->getRHS(), scope, depth + 1);
    if (r && *Truth(r) == decides) return Bool(decides);
    if (l && r) return Bool(!decides);
    return std::nullopt;
  }
  const std::optional<KnownValue> r = Evaluate(b->getRHS(), scope, depth + 1);
  if (!l || !r) return std::nullopt;
  if (!l->value || !r->value) return CompareWithNonZero(*l, *r, b->getOpcode());
  const int64_t x = *l->value, y = *r->value;
  int64_t out = 0;
  switch (b->getOpcode()) {
    case clang::BO_Add: if (__builtin_add_overflow(x, y, &out)) return std::nullopt; return KnownValue{out};
    case clang::BO_Sub: if (__builtin_sub_overflow(x, y, &out)) return std::nullopt; return KnownValue{out};
    case clang::BO_Mul: if (__builtin_mul_overflow(x, y, &out)) return std::nullopt; return KnownValue{out};
    case clang::BO_Div:
      if (y == 0 || (x == INT64_MIN && y == -1)) return std::nullopt;
      return KnownValue{x / y};
    case clang::BO_Rem:
      if (y == 0 || (x == INT64_MIN && y == -1)) return std::nullopt;
      return KnownValue{x % y};
    case clang::BO_EQ: return Bool(x == y);
    case clang::BO_NE: return Bool(x != y);
    case clang::BO_LT: return Bool(x < y);
    case clang::BO_LE: return Bool(x <= y);
    case clang::BO_GT: return Bool(x > y);
    case clang::BO_GE: return Bool(x >= y);
    default: return std::nullopt;
  }
}

// The variable a condition tests, if it is one that may hold a known value.
std::optional<Symbol> Tested(const clang::Expr* e, const KnownScope& scope) {
  e = e->IgnoreParenCasts();
  if (!llvm::isa<clang::DeclRefExpr>(e) && !llvm::isa<clang::MemberExpr>(e)) return std::nullopt;
  const Symbol s = SymbolOf(e, scope.bindings, scope.ast);
  if (!HoldsKnownValue(s, e->getType())) return std::nullopt;
  return s;
}

}  // namespace

std::optional<KnownValue> EvaluateKnown(const clang::Expr* e, const KnownScope& scope) {
  if (e == nullptr || !IsScalar(e->getType())) return std::nullopt;
  return Evaluate(e, scope, 0);
}

std::optional<bool> KnownTruth(const clang::Expr* cond, const KnownScope& scope) {
  if (cond == nullptr) return std::nullopt;
  return Truth(Evaluate(cond, scope, 0));
}

void LearnFromCondition(const clang::Expr* cond, bool value, const KnownScope& scope, KnownValues* known) {
  if (cond == nullptr) return;
  cond = cond->IgnoreParenImpCasts();
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(cond); u != nullptr && u->getOpcode() == clang::UO_LNot) {
    LearnFromCondition(u->getSubExpr(), !value, scope, known);
    return;
  }
  if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(cond)) {
    // `a && b` true: both held; `a || b` false: neither did.
    if ((b->getOpcode() == clang::BO_LAnd && value) || (b->getOpcode() == clang::BO_LOr && !value)) {
      LearnFromCondition(b->getLHS(), value, scope, known);
      LearnFromCondition(b->getRHS(), value, scope, known);
      return;
    }
    if (b->getOpcode() != clang::BO_EQ && b->getOpcode() != clang::BO_NE) return;
    const bool equal = value == (b->getOpcode() == clang::BO_EQ);
    for (int side = 0; side < 2; ++side) {
      const clang::Expr* var = side == 0 ? b->getLHS() : b->getRHS();
      const clang::Expr* other = side == 0 ? b->getRHS() : b->getLHS();
      const std::optional<Symbol> name = Tested(var, scope);
      if (!name) continue;
      const std::optional<KnownValue> v = Evaluate(other, scope, 0);
      if (!v || !v->value) continue;
      if (equal) {
        (*known)[name->key] = *v;
      } else if (*v->value == 0) {
        (*known)[name->key] = KnownValue{};  // not zero
      }
      return;
    }
    return;
  }
  if (const std::optional<Symbol> name = Tested(cond, scope)) {
    (*known)[name->key] = value ? KnownValue{} : KnownValue{0};
  }
}

bool HoldsKnownValue(const Symbol& variable, clang::QualType type) {
  if (variable.empty() || variable.key[0] == '#' || variable.key.find("[*]") != std::string::npos) return false;
  return !type->isReferenceType() && IsScalar(type);
}

}  // namespace streamcheck::lint
