#include "analyzer/driver_entry_points.h"

#include <clang/AST/RecursiveASTVisitor.h>

#include "analyzer/cuda_api.h"

namespace streamcheck::lint {
namespace {

// The variable `&pfn`, `(void**)&pfn`, `&(void*&)pfn` or
// `reinterpret_cast<void**>(&pfn)` hands over, when it holds a function pointer.
const clang::VarDecl* AddressedPointer(const clang::Expr* e) {
  e = e->IgnoreParenCasts();
  const auto* address = llvm::dyn_cast<clang::UnaryOperator>(e);
  if (address == nullptr || address->getOpcode() != clang::UO_AddrOf) return nullptr;
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(address->getSubExpr()->IgnoreParenCasts());
  const auto* var = ref != nullptr ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
  if (var == nullptr) return nullptr;
  const clang::QualType type = var->getType();
  return type->isFunctionPointerType() || type->isVoidPointerType() ? var : nullptr;
}

class Binder : public clang::RecursiveASTVisitor<Binder> {
 public:
  explicit Binder(std::map<const clang::VarDecl*, std::string>* bound) : bound_(bound) {}
  bool VisitCallExpr(clang::CallExpr* call) {
    std::string name;
    const clang::VarDecl* var = nullptr;
    for (const clang::Expr* arg : call->arguments()) {
      if (const auto* text = llvm::dyn_cast<clang::StringLiteral>(arg->IgnoreParenImpCasts());
          text != nullptr && text->isOrdinary() && FindApi(text->getString()) != nullptr) {
        name = text->getString().str();
      } else if (const clang::VarDecl* v = AddressedPointer(arg)) {
        var = v;
      }
    }
    // One name and one pointer: which variable gets which call is then sure.
    if (var != nullptr && !name.empty()) {
      auto [it, inserted] = bound_->emplace(var->getCanonicalDecl(), name);
      if (!inserted && it->second != name) it->second.clear();  // bound to two calls: neither
    }
    return true;
  }

 private:
  std::map<const clang::VarDecl*, std::string>* bound_;
};

}  // namespace

void DriverEntryPoints::Find(clang::ASTContext& ast) {
  found_ = true;
  Binder(&bound_).TraverseDecl(ast.getTranslationUnitDecl());
}

const std::string* DriverEntryPoints::BoundName(const clang::Expr* e, clang::ASTContext& ast) {
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenCasts());
  const auto* var = ref != nullptr ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
  if (var == nullptr || !var->getType()->isFunctionPointerType()) return nullptr;
  if (!found_) Find(ast);
  auto it = bound_.find(var->getCanonicalDecl());
  return it != bound_.end() && !it->second.empty() ? &it->second : nullptr;
}

std::string DriverEntryPoints::CalledThrough(const clang::CallExpr* call, clang::ASTContext& ast) {
  const std::string* name = BoundName(call->getCallee(), ast);
  return name != nullptr ? *name : std::string();
}

bool DriverEntryPoints::Bound(const clang::Expr* e, clang::ASTContext& ast) { return BoundName(e, ast) != nullptr; }

std::optional<bool> DriverEntryPoints::TestOfBoundPointer(const clang::Expr* cond, clang::ASTContext& ast) {
  if (cond == nullptr) return std::nullopt;
  cond = cond->IgnoreParenImpCasts();
  if (const auto* no = llvm::dyn_cast<clang::UnaryOperator>(cond); no != nullptr && no->getOpcode() == clang::UO_LNot) {
    const std::optional<bool> inner = TestOfBoundPointer(no->getSubExpr(), ast);
    return inner ? std::optional<bool>(!*inner) : std::nullopt;
  }
  if (const auto* cmp = llvm::dyn_cast<clang::BinaryOperator>(cond); cmp != nullptr && cmp->isEqualityOp()) {
    const auto null = [&](const clang::Expr* e) {
      return e->IgnoreParenCasts()->isNullPointerConstant(ast, clang::Expr::NPC_ValueDependentIsNotNull) !=
             clang::Expr::NPCK_NotNull;
    };
    const bool against_null = (Bound(cmp->getLHS(), ast) && null(cmp->getRHS())) ||
                              (Bound(cmp->getRHS(), ast) && null(cmp->getLHS()));
    if (!against_null) return std::nullopt;
    return cmp->getOpcode() == clang::BO_NE;
  }
  return Bound(cond, ast) ? std::optional<bool>(true) : std::nullopt;
}

}  // namespace streamcheck::lint
