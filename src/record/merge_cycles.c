#include "merge_cycles.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nqueens/error.h"

typedef struct arc {
  size_t to, edge;
} arc_t;

/* The graph as arcs by point, and the depth-first walk's numbers. */
typedef struct walk {
  size_t *arc_start; /* point i's arcs: arcs[arc_start[i] .. arc_start[i + 1]) */
  arc_t *arcs;
  size_t *order, *low, *next_arc, *via, *stack; /* order 0: not reached yet */
} walk_t;

static void walk_free(walk_t *w) {
  free(w->arc_start);
  free(w->arcs);
  free(w->order);
  free(w->low);
  free(w->next_arc);
  free(w->via);
  free(w->stack);
}

static int walk_build(walk_t *w, const nq__merge_edge_t *edges, size_t count, size_t points) {
  const size_t slots = points ? points : 1;
  memset(w, 0, sizeof *w);
  w->arc_start = calloc(slots + 1, sizeof *w->arc_start);
  w->arcs = malloc((count ? 2 * count : 1) * sizeof *w->arcs);
  w->order = calloc(slots, sizeof *w->order);
  w->low = malloc(slots * sizeof *w->low);
  w->next_arc = malloc(slots * sizeof *w->next_arc);
  w->via = malloc(slots * sizeof *w->via);
  w->stack = malloc(slots * sizeof *w->stack);
  if (!w->arc_start || !w->arcs || !w->order || !w->low || !w->next_arc || !w->via || !w->stack)
    return NQ_ENOMEM;
  for (size_t r = 0; r < count; r++) {
    w->arc_start[edges[r].first + 1]++;
    w->arc_start[edges[r].end + 1]++;
  }
  for (size_t i = 0; i < points; i++)
    w->arc_start[i + 1] += w->arc_start[i];
  memcpy(w->next_arc, w->arc_start, points * sizeof *w->next_arc);
  for (size_t r = 0; r < count; r++) {
    w->arcs[w->next_arc[edges[r].first]++] = (arc_t){edges[r].end, r};
    w->arcs[w->next_arc[edges[r].end]++] = (arc_t){edges[r].first, r};
  }
  memcpy(w->next_arc, w->arc_start, points * sizeof *w->next_arc);
  return NQ_OK;
}

/* Marks the edges on a cycle among those reached from `start`: one not in
 * the tree closes a cycle; a tree edge is a bridge when nothing below its
 * far end reaches back above it. */
static void walk_from(walk_t *w, unsigned char *on_cycle, size_t start, size_t *numbered) {
  size_t depth = 0;
  w->stack[depth++] = start;
  w->order[start] = w->low[start] = ++*numbered;
  w->via[start] = SIZE_MAX;
  while (depth > 0) {
    size_t x = w->stack[depth - 1];
    if (w->next_arc[x] < w->arc_start[x + 1]) {
      arc_t arc = w->arcs[w->next_arc[x]++];
      if (arc.edge == w->via[x])
        continue;
      if (w->order[arc.to] == 0) {
        w->order[arc.to] = w->low[arc.to] = ++*numbered;
        w->via[arc.to] = arc.edge;
        w->stack[depth++] = arc.to;
      } else {
        on_cycle[arc.edge] = 1;
        if (w->order[arc.to] < w->low[x])
          w->low[x] = w->order[arc.to];
      }
      continue;
    }
    if (--depth == 0)
      break;
    size_t parent = w->stack[depth - 1];
    if (w->low[x] < w->low[parent])
      w->low[parent] = w->low[x];
    on_cycle[w->via[x]] = w->low[x] <= w->order[parent];
  }
}

/* Stretch i is confirmed when some edge covers it and no bridge does:
 * the covers and the bridges over each stretch by their differences. */
static int mark_confirmed(unsigned char *confirmed, const unsigned char *on_cycle,
                          const nq__merge_edge_t *edges, size_t count, size_t points) {
  const size_t slots = points ? points : 1;
  int64_t *covers = calloc(slots, sizeof *covers), *bridges = calloc(slots, sizeof *bridges);
  if (covers == NULL || bridges == NULL) {
    free(covers);
    free(bridges);
    return NQ_ENOMEM;
  }
  for (size_t r = 0; r < count; r++) {
    covers[edges[r].first]++, covers[edges[r].end]--;
    if (!on_cycle[r])
      bridges[edges[r].first]++, bridges[edges[r].end]--;
  }
  int64_t cover = 0, bridge = 0;
  for (size_t i = 0; i < points; i++) {
    cover += covers[i];
    bridge += bridges[i];
    confirmed[i] = cover > 0 && bridge == 0;
  }
  free(covers);
  free(bridges);
  return NQ_OK;
}

int nq__merge_find_compared(unsigned char *on_cycle, unsigned char *confirmed,
                            const nq__merge_edge_t *edges, size_t count, size_t point_count) {
  walk_t w;
  memset(on_cycle, 0, count);
  int rc = walk_build(&w, edges, count, point_count);
  size_t numbered = 0;
  for (size_t i = 0; rc == NQ_OK && i < point_count; i++)
    if (w.order[i] == 0)
      walk_from(&w, on_cycle, i, &numbered);
  walk_free(&w);
  return rc == NQ_OK ? mark_confirmed(confirmed, on_cycle, edges, count, point_count) : rc;
}
