#include "report/kernel_names.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <vector>

namespace streamcheck::report {
namespace {

bool IsOpen(char c) { return c == '<' || c == '(' || c == '{' || c == '['; }
bool IsClose(char c) { return c == '>' || c == ')' || c == '}' || c == ']'; }
char CloserOf(char c) { return c == '<' ? '>' : c == '(' ? ')' : c == '{' ? '}' : ']'; }
bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

// The length of an operator name at s[i] ("operator()", "operator<<=",
// "operator new[]", "operator int"), or 0 when s[i] starts no operator name.
// Its characters are no brackets: "operator<" opens no template list.
size_t OperatorLength(std::string_view s, size_t i) {
  constexpr std::string_view kOperator = "operator";
  if (s.substr(i, kOperator.size()) != kOperator) return 0;
  if (i > 0 && IsIdentChar(s[i - 1])) return 0;
  size_t j = i + kOperator.size();
  if (j < s.size() && IsIdentChar(s[j])) return 0;  // "operators", "operator_x"
  if (s.substr(j, 2) == "()" || s.substr(j, 2) == "[]") return j + 2 - i;
  const size_t symbols = j;
  while (j < s.size() && std::string_view("+-*/%^&|~!=<>,").find(s[j]) != std::string_view::npos) ++j;
  if (j > symbols) return j - i;
  // operator new / delete [] / a conversion to a type name.
  if (j < s.size() && s[j] == ' ') {
    ++j;
    while (j < s.size() && IsIdentChar(s[j])) ++j;
    if (s.substr(j, 2) == "[]") j += 2;
  }
  return j - i;
}

// The index just past the group opened at s[i], or npos when unbalanced.
size_t SkipGroup(std::string_view s, size_t i) {
  std::vector<char> expected{CloserOf(s[i])};
  for (size_t j = i + 1; j < s.size(); ++j) {
    if (const size_t op = OperatorLength(s, j)) {
      j += op - 1;
      continue;
    }
    const char c = s[j];
    if (c == '>' && j > 0 && s[j - 1] == '-') continue;  // "->" inside decltype
    if (IsOpen(c)) {
      expected.push_back(CloserOf(c));
    } else if (IsClose(c)) {
      if (c != expected.back()) return std::string_view::npos;
      expected.pop_back();
      if (expected.empty()) return j + 1;
    }
  }
  return std::string_view::npos;
}

// The name at nesting depth 0, in pieces: text, "::", spaces and bracketed
// groups (whose insides stay one piece).
struct Token {
  enum Kind { kText, kScope, kSpace, kGroup } kind;
  std::string_view text;  // a group: with its brackets
  char open() const { return text.front(); }
  std::string_view inner() const { return text.substr(1, text.size() - 2); }
};

bool Tokenize(std::string_view s, std::vector<Token>* tokens) {
  auto add_text = [&](size_t begin, size_t end) {
    if (!tokens->empty() && tokens->back().kind == Token::kText &&
        tokens->back().text.data() + tokens->back().text.size() == s.data() + begin)
      tokens->back().text = std::string_view(tokens->back().text.data(), tokens->back().text.size() + end - begin);
    else
      tokens->push_back({Token::kText, s.substr(begin, end - begin)});
  };
  for (size_t i = 0; i < s.size();) {
    if (s.substr(i, 2) == "::") {
      tokens->push_back({Token::kScope, s.substr(i, 2)});
      i += 2;
    } else if (s[i] == ' ') {
      tokens->push_back({Token::kSpace, s.substr(i, 1)});
      ++i;
    } else if (const size_t op = OperatorLength(s, i)) {
      add_text(i, i + op);
      i += op;
    } else if (IsOpen(s[i])) {
      const size_t end = SkipGroup(s, i);
      if (end == std::string_view::npos) return false;
      tokens->push_back({Token::kGroup, s.substr(i, end - i)});
      i = end;
    } else if (IsClose(s[i])) {
      return false;
    } else {
      add_text(i, i + 1);
      ++i;
    }
  }
  return true;
}

// One "::"-separated part of the qualified name.
struct Component {
  std::string base;                 // "reduce_kernel", "operator()"; empty for lambdas
  std::string_view template_args;   // inside of the first <...>, when any
  std::string lambda;               // "lambda #2", "unnamed type" for {...} parts
  bool anonymous_namespace = false;
};

Component MakeComponent(const std::vector<Token>& tokens) {
  Component c;
  if (tokens.size() == 1 && tokens[0].kind == Token::kGroup && tokens[0].open() == '(' &&
      tokens[0].inner() == "anonymous namespace") {
    c.anonymous_namespace = true;
    return c;
  }
  if (tokens.size() == 1 && tokens[0].kind == Token::kGroup && tokens[0].open() == '{') {
    std::string_view inner = tokens[0].inner();
    const size_t hash = inner.rfind('#');
    const std::string number = hash == std::string_view::npos ? "" : " #" + std::string(inner.substr(hash + 1));
    c.lambda = inner.substr(0, 6) == "lambda" ? "lambda" + number : "unnamed type";
    return c;
  }
  for (const Token& t : tokens) {
    if (t.kind == Token::kText) c.base += t.text;
    if (t.kind == Token::kGroup && t.open() == '<' && c.template_args.empty()) c.template_args = t.inner();
  }
  return c;
}

// The first template argument, at depth 0 of the argument list.
std::string_view FirstArgument(std::string_view args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (const size_t op = OperatorLength(args, i)) {
      i += op - 1;
    } else if (IsOpen(args[i])) {
      const size_t end = SkipGroup(args, i);
      if (end == std::string_view::npos) return args;
      i = end - 1;
    } else if (args[i] == ',') {
      return args.substr(0, i);
    }
  }
  return args;
}

// Kernels named for what they wrap: CUTLASS's Kernel<Operator>, Kernel2<...>,
// device_kernel<GemmUniversal<...>>.
bool IsGenericWrapper(const std::string& base) {
  return base == "Kernel" || base == "Kernel2" || base == "device_kernel" || base == "kernel";
}

bool LooksLikeCxxName(std::string_view s) {
  return s.find("::") != std::string_view::npos || s.find('(') != std::string_view::npos ||
         s.find('<') != std::string_view::npos;
}

std::string Demangled(std::string_view name) {
  if (name.substr(0, 2) != "_Z") return std::string(name);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(std::string(name).c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(name);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string Shorten(std::string_view s, int depth) {
  std::vector<Token> tokens;
  if (depth > 4 || !LooksLikeCxxName(s) || !Tokenize(s, &tokens)) return std::string(s);
  // Trailing qualifiers, clone suffixes, then the parameter list.
  auto is_qualifier = [](const Token& t) {
    return t.kind == Token::kSpace || (t.kind == Token::kGroup && t.open() == '[') ||
           (t.kind == Token::kText && (t.text == "const" || t.text == "volatile" || t.text == "&" ||
                                       t.text == "&&" || t.text == "noexcept"));
  };
  while (!tokens.empty() && is_qualifier(tokens.back())) tokens.pop_back();
  if (!tokens.empty() && tokens.back().kind == Token::kGroup && tokens.back().open() == '(' && tokens.size() > 1)
    tokens.pop_back();
  // The return type ends at the last space left at depth 0.
  size_t start = 0;
  for (size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i].kind == Token::kSpace) start = i + 1;
  std::vector<Component> components;
  std::vector<Token> current;
  for (size_t i = start; i <= tokens.size(); ++i) {
    if (i == tokens.size() || tokens[i].kind == Token::kScope) {
      Component c = MakeComponent(current);
      if (!c.anonymous_namespace && (!c.base.empty() || !c.lambda.empty())) components.push_back(std::move(c));
      current.clear();
    } else {
      current.push_back(tokens[i]);
    }
  }
  if (components.empty()) return std::string(s);
  // The nearest enclosing named thing, for lambdas and operators.
  auto enclosing = [&](size_t from) -> std::string {
    for (size_t k = from; k-- > 0;)
      if (components[k].lambda.empty() && components[k].base != "operator()") return components[k].base;
    return {};
  };
  size_t last = components.size() - 1;
  // A lambda's call operator is the lambda.
  if (components[last].base == "operator()" && last > 0 && !components[last - 1].lambda.empty()) --last;
  const Component& name = components[last];
  if (!name.lambda.empty()) {
    const std::string outer = enclosing(last);
    return outer.empty() ? name.lambda : name.lambda + " in " + outer;
  }
  if (name.base.substr(0, 8) == "operator" && last > 0 && components[last - 1].lambda.empty())
    return components[last - 1].base + "::" + name.base;
  if (IsGenericWrapper(name.base) && !name.template_args.empty())
    return name.base + "<" + Shorten(Trim(FirstArgument(name.template_args)), depth + 1) + ">";
  return name.base;
}

}  // namespace

std::string ShortFunctionName(std::string_view name) {
  const std::string demangled = Demangled(Trim(name));
  return Shorten(demangled, 0);
}

}  // namespace streamcheck::report
