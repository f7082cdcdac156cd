#include "messages.h"

#include <string.h>

/* Unit words: id; frame bytes (kind, top, bottom, left, right, weight,
 * stabilizer, depth), byte i at bits 8i; the prefix columns, one byte
 * each, the same way.  Unused prefix bytes are 0. */
void nq__unit_pack(uint64_t *words, const nq_unit_t *unit) {
  const nq_frame_t *f = &unit->frame;
  uint8_t frame_bytes[8] = {f->kind, f->top, f->bottom, f->left,
                            f->right, f->weight, f->stabilizer, unit->depth};
  words[0] = unit->id;
  words[1] = 0;
  words[2] = 0;
  for (int i = 0; i < 8; i++) {
    words[1] |= (uint64_t)frame_bytes[i] << (8 * i);
    words[2] |= (uint64_t)unit->prefix[i] << (8 * i);
  }
}

static uint8_t byte_of(uint64_t word, int i) { return (uint8_t)(word >> (8 * i)); }

void nq__unit_unpack(nq_unit_t *unit, const uint64_t *words) {
  memset(unit, 0, sizeof *unit);
  unit->id = words[0];
  unit->frame.kind = byte_of(words[1], 0);
  unit->frame.top = byte_of(words[1], 1);
  unit->frame.bottom = byte_of(words[1], 2);
  unit->frame.left = byte_of(words[1], 3);
  unit->frame.right = byte_of(words[1], 4);
  unit->frame.weight = byte_of(words[1], 5);
  unit->frame.stabilizer = byte_of(words[1], 6);
  unit->depth = byte_of(words[1], 7);
  for (int i = 0; i < NQ_UNIT_MAX_DEPTH; i++)
    unit->prefix[i] = byte_of(words[2], i);
}

void nq__result_pack(uint64_t *words, const nq_unit_result_t *result) {
  words[0] = result->id;
  words[1] = result->solutions;
  words[2] = result->stabilizer_sum;
  words[3] = result->nodes;
  words[4] = result->weight;
}

void nq__result_unpack(nq_unit_result_t *result, const uint64_t *words) {
  result->id = words[0];
  result->solutions = words[1];
  result->stabilizer_sum = words[2];
  result->nodes = words[3];
  result->weight = (uint32_t)words[4];
}
