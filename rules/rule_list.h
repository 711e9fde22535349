/* rule_list.h: every rule, one line each, sorted by slug. Data only: the
 * engine (src/findings/rule_registry.c) and the tests include it with their own
 * definition of RULE.
 *
 *   RULE(ident)        a rule: file rules/<ident>.c defines
 *                      `const struct rule_desc rule_<ident>` whose slug is
 *                      ident with '_' spelled '-'
 *   DEBUG_RULE(ident)  the same for a debug rule (RULE_DEBUG: engine
 *                      diagnostics for the corpus, off unless enabled; no
 *                      page, no corpus group of its own)
 *
 * Adding a rule (scripts/new-rule SLUG writes 1, 3 and 4 and adds 2):
 *   1. rules/<ident>.c: the descriptor (slug, severity, category, summary,
 *      rationale, fix) and its run function, which reads the linked model
 *      (src/model/model.h) and reports with rule_report (src/findings/rule.h). Nothing else
 *      to register: every .c at the top of rules/ is built (a glob).
 *   2. a RULE(<ident>) line below, where the sort order puts it.
 *   3. rules/docs/<slug>.md: the page behind --explain and the SARIF help, with the
 *      sections unit/test_rule_docs requires.
 *   4. corpus/<slug>/: at least one case, with `expect: <slug>` next to the
 *      offending line (tests/corpus_runner.c says how expectations are written).
 * unit/test_rule_list fails while the list is unsorted, names a rule whose
 * file, page or corpus group (with an expectation of it) is missing, or a .c
 * file in rules/ defines a descriptor not listed here.
 */
RULE(cleanup_not_ensured)
RULE(dangling_gc_root)
DEBUG_RULE(debug_inputs)
DEBUG_RULE(debug_no_gvl)
DEBUG_RULE(debug_offload_verdict)
DEBUG_RULE(debug_release_site)
DEBUG_RULE(debug_state_gates)
RULE(io_fd_without_io_region)
RULE(lock_across_boundary)
RULE(missing_gc_guard)
RULE(mt_unsafe_call)
RULE(offload_candidate)
RULE(offload_flag_unguarded)
RULE(offload_unsafe)
RULE(process_wide_state)
RULE(removed_api)
RULE(result_lost_on_interrupt)
RULE(ruby_api_without_gvl)
RULE(shared_mutable_state)
RULE(small_work_nogvl)
RULE(thread_local_state)
RULE(ubf_destroys_state)
RULE(ubf_ignored)
RULE(ubf_not_async_safe)
RULE(ubf_on_cpu_work)
RULE(unfrozen_input)
RULE(uninterruptible_blocking)
RULE(unset_result)
RULE(unused_suppression)
RULE(value_access_without_gvl)
RULE(with_gvl_escape)
