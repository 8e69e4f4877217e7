"""Summarizes a run of the HTTP cache test suite (Scripts/run-cache-tests.sh): pass counts by level, applicable and
total, the failures, the tests not applicable to a private client cache (with the reason from the list given),
and the suite's published browser results counted the same way.

usage: summarize-cache-tests.py TESTS.json RESULTS.json PUBLISHED-RESULTS-DIR NOT-APPLICABLE.txt"""
import json
import os
import sys

LEVELS = [("required", "must"), ("optimal", "should"), ("check", "check")]


def load_not_applicable(path):
    reasons = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            test_id, _, reason = line.partition(" ")
            reasons[test_id] = reason.strip()
    return reasons


def counts(tests, results, skipped):
    table = {}
    for kind, _ in LEVELS:
        these = [t for t in tests if t["kind"] == kind and not t["browser_only"]]
        applicable = [t for t in these if t["id"] not in skipped]
        passed = [t for t in applicable if results.get(t["id"]) is True]
        table[kind] = (len(passed), len(applicable), len(these))
    return table


def main():
    tests_path, results_path, published_dir, skipped_path = sys.argv[1:5]
    with open(tests_path, encoding="utf-8") as handle:
        tests = json.load(handle)
    with open(results_path, encoding="utf-8") as handle:
        text = handle.read()
    results = json.loads(text[text.index("{"):]) if "{" in text else {}
    skipped = load_not_applicable(skipped_path)
    table = counts(tests, results, skipped)
    print("RequestKit ResponseCache against http-tests/cache-tests")
    for kind, level in LEVELS:
        passed, applicable, total = table[kind]
        print(f"  {level:6} ({kind:8}): {passed} passed of {applicable} applicable ({total} in the suite)")
    print("\nFailures among the applicable tests:")
    for kind, level in LEVELS:
        for test in tests:
            if test["kind"] != kind or test["browser_only"] or test["id"] in skipped:
                continue
            result = results.get(test["id"])
            if result is not True:
                detail = "not run" if result is None else " ".join(str(part) for part in result)
                print(f"  [{level}] {test['id']}: {detail}")
    print("\nNot applicable to a private client cache (Scripts/cache-tests-not-applicable.txt):")
    for test_id, reason in sorted(skipped.items()):
        print(f"  {test_id}: {reason}")
    print("\nPublished results, the same tests counted the same way (passed / applicable):")
    for name in sorted(os.listdir(published_dir)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(published_dir, name), encoding="utf-8") as handle:
            published = json.load(handle)
        row = counts(tests, published, skipped)
        print("  " + name[:-5].ljust(14) + "  ".join(
            f"{level} {row[kind][0]}/{row[kind][1]}" for kind, level in LEVELS))


if __name__ == "__main__":
    main()
