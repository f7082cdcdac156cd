#include "messages.h"

void nq__work_pack(uint64_t *words, const nq__work_t *unit) {
  words[0] = unit->id;
  words[1] = unit->data[0];
  words[2] = unit->data[1];
}

void nq__work_unpack(nq__work_t *unit, const uint64_t *words) {
  unit->id = words[0];
  unit->data[0] = words[1];
  unit->data[1] = words[2];
}

void nq__result_pack(uint64_t *words, const nq_unit_result_t *result) {
  words[0] = result->id;
  words[1] = result->solutions;
  words[2] = result->stabilizer_sum;
  words[NQ_RESULT_NODES_WORD] = result->nodes;
  words[4] = result->weight;
}

void nq__result_unpack(nq_unit_result_t *result, const uint64_t *words) {
  result->id = words[0];
  result->solutions = words[1];
  result->stabilizer_sum = words[2];
  result->nodes = words[NQ_RESULT_NODES_WORD];
  result->weight = (uint32_t)words[4];
}
