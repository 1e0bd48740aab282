// Package replay is the middle of the pipeline (datasets → replay → judge →
// replay → metrics → reports): it loads the policy, replays each recorded
// tool call through it — scope, permissions layer, deterministic matchers,
// trajectory state, judge calls, failure policy, action priority — and
// emits one Result per case and judge for metrics and reports.
//
// # Policy
//
// ParsePolicy/LoadPolicy read the TOML policy of DESIGN §3
// (schema = "apeval.policy/v1"); ParseCriteria reads a --criteria file.
// Every problem in a file is reported, each as "file:line: key: message",
// e.g. `policy.toml:14: rule[2].action: "deny" is not one of …`; rule[N]
// counts from 0 in file order; unknown keys are errors. Rules take id,
// version (≥ 1, default 1), condition, action, class, name, description,
// instruction (the text an inject_instruction rule adds; never sent to a
// judge), hook_points, categories, tools, pieces, movements, max_fires,
// [rule.when], [rule.baseline] and [rule.boundary]. List keys also accept a
// single string. Top level: max_rules_per_call (default 10), [permissions],
// [categories] (tool name → category, overriding the built-in map) and
// [kill_criteria] (judge_p95_max is a duration string such as "800ms").
//
// Validation beyond the enums: a rule needs a condition, a when, a boundary
// or class "always"; an always rule cannot have a condition (it never goes
// to a judge); a boundary rule has no condition, and its actions are
// request_approval at review_at and stop_task at pause_at (an action key, if
// written, must be one of those two and only labels rows that did not fire);
// review_at must be below pause_at; hook_points must be the hook names of
// seed 000 §3 (tool.before, tool.after, tool.denied, completion.before_accept,
// runtime.error); an empty scope list means "any".
//
// # Matchers
//
// A call's primary argument is its command, else file_path, path, url,
// query, else the string argument whose key sorts first (a map has no
// order). A command given as an array (Codex-style exec) is joined with
// shell quoting. Decisions where DESIGN is silent:
//
//   - command_prefix and the network check look at every simple command of
//     the primary argument, as a shell would split it on ;, &&, ||, |, &,
//     newlines, (…), $(…) and backquotes; leading VAR=value assignments,
//     wrappers (sudo/doas with their options, env, command, exec, nohup,
//     time, nice, timeout, xargs) and shell keywords are skipped, and
//     `sh|bash|zsh -c 'script'` is opened (two levels). So `rm` matches
//     "cd x && FOO=1 sudo rm -rf y" and "bash -lc 'rm x'", but not "rmdir"
//     nor `echo "rm"`. The first token is compared with the command's base
//     name (`rm` matches /bin/rm) unless the prefix has a slash. A prefix
//     may have several tokens ("git push"). This errs toward matching: a
//     safety precondition that misses a chained rm is worse than one more
//     judge call.
//   - command_regex (RE2) matches anywhere in the primary argument.
//   - arg_glob values and permission patterns are globs: * matches any run
//     of characters including spaces and slashes (seed 001: "rm *", "*.env"
//     on full paths), ? one character, \ escapes; the whole string must
//     match. Numbers and booleans are matched in their JSON spelling.
//   - min/max_non_ascii_ratio: non-ASCII runes ÷ non-space runes over every
//     string value of the arguments (a Write's content carries the
//     language, its path does not); 0 when there is no text.
//   - path_outside_workspace: the call's path (file_path, path, cwd, target)
//     resolved lexically against workspace is outside it; a call without a
//     path or a case without a workspace is not outside. Symlinks are not
//     resolved (the files are not there at replay time).
//   - tool and permission tool names compare case-insensitively; "*" is any.
//   - [categories] overrides apply when the case's category is missing or
//     equals the built-in default for its tool name (the reader fills that
//     default, so it cannot be told from an explicit one); an explicit,
//     different category in the record wins.
//
// # Replay semantics
//
// Per case, in session order (DESIGN §4):
//
//  1. Scope. A rule whose fingerprint is in approved_fingerprints still gets
//     a row, with Source "scope", no result and not fired. max_fires counts
//     the rule's fires earlier in the session; an exhausted rule gets no
//     row. RulesInScope counts rows.
//  2. Permissions (seed 001): first rule whose tool and pattern match wins;
//     Permission is allow|deny|ask, or off without a [permissions] table.
//  3. Deterministic: a rule without condition is decided by its when (an
//     always rule fires whenever in scope and its when, if any, holds);
//     with condition, a false when is no_match without a judge. Boundary
//     rules count per session, per rule, each crossing by an unapproved
//     call (approval_state "approved" is not counted): network = the
//     network definition; workspace = a file_change, data_deletion or
//     command_execution call whose path resolves outside the workspace. The
//     n-th crossing fires stop_task when n ≥ pause_at, else
//     request_approval when n ≥ review_at. A boundary rule's when, if any,
//     narrows what counts as a crossing.
//  4. Judge: rules needing the judge go in calls of at most
//     max_rules_per_call, in policy order, each under its own Timeout. The
//     recorded judge gets the case's recordings in Request.Recorded.
//     previous_rule_fires lists the asked rules with their fire counts so
//     far in the session, sorted by rule id.
//  5. Failure policy (timeout, error, invalid, or an unknown answer):
//     Result "unknown", Source "failure", Status the failure. Only these
//     fire: a dangerous rule whose action is deny_current_tool or
//     request_approval (on its baseline if it has one, else on its when,
//     else not at all); an approval rule with a when (as request_approval,
//     whatever its action). inject_instruction, notify_admin, audit_only and
//     stop_task never fire on a failure, whatever the class, and style,
//     audit, stop and always rules never do. A rule the judge did not answer
//     although the call succeeded (a recording made under an older policy)
//     has Status "missing", Result "unknown" and does not fire.
//  6. Resolution: permission deny → deny_current_tool, ask →
//     request_approval, then the highest fired action wins (stop_task >
//     deny_current_tool > request_approval > inject_instruction >
//     audit_only = notify_admin > allow); on a tie the earlier rule wins; a
//     rule never lowers the permission's action. RuleResult.Action is the
//     action the rule takes when it fires: its own, or for a boundary rule
//     and the approval fallback the action that applies.
//  7. State (fire counts, crossings) updates after the case.
//
// RulesJudged counts the rules sent to a judge (failed calls included).
// Fingerprints are computed for every row (seed 000 §7.3, see Fingerprint);
// absent arguments hash as {}.
//
// # Judge input
//
// BuildInput copies an allow-list of fields into judge.Input (seed 000 §6.1,
// seed 003): secrets are masked with MaskString/MaskValue, each string is cut
// to 2000 runes, arguments_summary is the masked primary argument on one line
// cut to 200 runes, and only the last four messages are sent. Rule actions,
// instruction texts, labels, tags, the workspace, the user role and
// recordings never reach a judge.
//
// # Orchestration
//
// Run reads cases on one goroutine in blocks of 256, hands each judge's
// workers (4 × Options.Concurrency per judge, each owning the sessions that
// hash to it) the cases of their sessions — a semaphore per judge bounds its
// calls in flight to Options.Concurrency, so an uneven spread of sessions
// over workers does not leave call slots idle, and the wait for a slot is
// not part of a call's latency or deadline — and emits results in input order —
// case by case, judge by judge — so output is identical at any concurrency;
// at most ten blocks are in flight, so memory does not grow with the input.
// Within a session, records must come in non-decreasing seq order (a
// reader's default seq is the record's position in the whole input); a
// session going backwards stops the run with a *SeqError naming the case's
// file:line (the check is datasets.CheckSeq, which datasets validate uses
// too). A stream has no end-of-session marker, so session state lives until
// the run ends; it is kept to the session id (interned exactly, see
// internal/intern) and a few counters per session (≈ 40 MB per judge for a
// million sessions, plus the ids).
package replay
