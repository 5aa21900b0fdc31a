// A section loaded through the list (`s = n->val`) and freed is the same
// section after the walk moves on (`n = n->next`): `s` still holds it, so
// reading it afterwards uses freed memory. Racy twin of
// list_walk_freeing_each_node_clean.cu.
#include <cstdio>
#include <cstdlib>

struct Node { void* val; Node* next; };
struct Section { char* type; Node* options; };

void free_section(Section* s) {
  free(s->type);
  free(s);
}

void read_after_moving_on(Node* n) {
  Section* s = static_cast<Section*>(n->val);
  free_section(s);
  n = n->next;
  std::printf("%s\n", s->type);  // expected-warning:23{{use-after-free}}
}

void read_after_free_in_the_walk(Node* n) {
  while (n != nullptr) {
    Section* s = static_cast<Section*>(n->val);
    free_section(s);
    std::printf("%s\n", s->type);  // expected-warning:25{{use-after-free}}
    n = n->next;
  }
}
