/*
 * demo.h - the simulator behind `make demo`: shared printing helpers and the
 * scenarios. Each scenario is one function in its own file; main.c runs them
 * in order. It uses only the public API, as a user's program would.
 */
#ifndef PL_DEMO_H
#define PL_DEMO_H

#include <stdint.h>

#include <placement.h>

/* A heading for a scenario or a step. */
void demo_title(const char *title);
/* One row of a bar chart: label, value, the mark (fair share), the scale max. */
void demo_bar(const char *label, uint32_t value, uint32_t mark, uint32_t max);
/* Build a view of snap in memory from malloc; exits with a message on error. */
pl_view *demo_view(const pl_snapshot *snap, uint32_t scorer, void **mem);
/* Print an action's sentence, indented, with a step number. */
void demo_explain(const pl_snapshot *snap, const pl_action *a, uint32_t step);

/* Scenarios: each returns 0, or 1 after printing why it failed. */
int demo_hash(void);
int demo_fleet(void);
int demo_broker(void);
int demo_region(void);

#endif
