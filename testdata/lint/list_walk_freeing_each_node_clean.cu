// A list walked with `n = n->next`, each node's section loaded into the same
// pointer (`s = n->val`), read and freed: every use of `s` follows a fresh
// load, so nothing is used after it was freed (the shape of a config parser
// that frees each section once parsed). Once `n` moves on, what was freed
// through it (`n->val`) is not what it leads to.
#include <cstdio>
#include <cstdlib>

struct Node { void* val; Node* next; };
struct Section { char* type; Node* options; };

void free_section(Section* s) {
  free(s->type);
  for (Node* o = s->options; o != nullptr;) {
    Node* next = o->next;
    free(o);
    o = next;
  }
  free(s);
}

int parse(Node* n) {
  Section* s = static_cast<Section*>(n->val);
  int count = s->options != nullptr;
  n = n->next;
  free_section(s);
  while (n != nullptr) {
    s = static_cast<Section*>(n->val);  // the next section
    std::printf("%s\n", s->type);
    count += s->options != nullptr;
    free_section(s);
    n = n->next;
  }
  return count;
}
