"""General mechanisms of the classifier and the evidence ranking, each on a small log written
for this test in the shape a tool prints (not copied from any corpus)."""

from __future__ import annotations

import pytest

from truegreen.diagnose import diagnose_text


def _doc(log: str) -> dict:
    return diagnose_text(log).document()


def _top(doc: dict, n: int = 3) -> list[int]:
    return [e["line"] for e in doc["evidence"][:n]]


def _travis(cmd: str, body: str, code: int = 1) -> str:
    return (
        "travis_fold:start:install\n$ ./install-deps.sh\nall set\ntravis_fold:end:install\n"
        f'$ {cmd}\n{body}\nThe command "{cmd}" exited with {code}.\n\nDone. Your build exited with 1.\n'
    )


def _expect(cmd: str, body: str, cls: str, line: int | None = None, code: int = 1) -> dict:
    """Diagnose ``body`` as the output of a failing Travis step; check the class and that
    ``line`` is among the first three evidence lines."""
    doc = _doc(_travis(cmd, body, code))
    assert doc["class"] == cls, (cmd, doc["class"], doc["evidence"][:3])
    if line is not None:
        assert line in _top(doc), (cmd, doc["evidence"][:3])
    return doc


#: a long tail of other output between a failure and its step's exit
_FAR = "".join(f"worker batch {k}: ok\n" for k in range(3000))


def test_scalatest_failed_marker_behind_an_sbt_level_prefix_is_a_test_failure():
    body = (
        "[info] Compiling 3 Scala sources to /build/core/target/classes ...\n"
        "[info] Done compiling.\n"
        "[info] QueueSpec:\n"
        "[info] - keeps insertion order\n"
        "[info] - drops the oldest entry when full *** FAILED ***\n"
        "[info]   4 did not equal 3 (QueueSpec.scala:41)\n"
        "[info] Run completed in 2 seconds, 113 milliseconds.\n"
        "[info] Passed: Total 12, Failed 0, Errors 0, Passed 12\n"
    )
    doc = _doc(_travis("sbt +test", body))
    assert doc["class"] == "test"
    assert 10 in _top(doc)  # the "*** FAILED ***" line (log line 10)


def test_zero_counts_are_not_failures():
    body = (
        "Testing suite.alpha_SUITE: TEST COMPLETE, 14 ok, 0 failed of 14 test cases\n"
        "Testing suite.beta_SUITE: TEST COMPLETE, 6 ok, 0 failed of 6 test cases\n"
        "Tests: 40, Failures: 0, Errors: 0\n"
        "cleanup done\n"
    )
    doc = _doc(_travis("./run-checks", body))
    texts = [e["text"] for e in doc["evidence"] if e["kind"] == "error"]
    assert not any("0 failed" in t or "Failures: 0" in t for t in texts)


def test_common_test_phpunit_rspec_and_xctest_failure_lines_are_test_failures():
    cases = {
        "make ct": "queue_SUITE:ack_after_close failed on line 88\nReason: {badmatch,closed}",
        "vendor/bin/phpunit": "1) App\\Tests\\ClockTest::testNow\nFailed asserting that 3 is identical to 4.",
        "bundle exec rspec": "  1) Cart totals rounds down\n     Failure/Error: expect(total).to eq(3)",
        "xcodebuild test": '  testParsesEmptyBody, XCTAssertEqual failed: ("1") is not equal to ("2")',
    }
    for cmd, body in cases.items():
        doc = _doc(_travis(cmd, body))
        assert doc["class"] == "test", (cmd, doc["class"])
        assert 7 in _top(doc) or 6 in _top(doc), (cmd, doc["evidence"][:3])


def test_a_git_diff_printed_by_a_format_check_is_lint():
    body = (
        "Running clang-format on changed files\n"
        "diff --git a/src/queue.cpp b/src/queue.cpp\n"
        "index 1d2e3f4..5a6b7c8 100644\n"
        "--- a/src/queue.cpp\n"
        "+++ b/src/queue.cpp\n"
        "@@ -10,3 +10,3 @@\n"
        "-int  size(){return n;}\n"
        "+int size() { return n; }\n"
    )
    _expect("contrib/check-format.sh", body, "lint", 7)


def test_indented_compiler_error_in_a_language_without_a_rule_of_its_own_is_build():
    body = "  src/parse.coffee:8:25: error: unexpected identifier\n  x = typeof 42n\n      ^\n"
    doc = _doc(_travis("make compile", body))
    assert doc["class"] == "build"
    assert _top(doc)[0] == 6


def test_the_last_block_before_an_unexplained_exit_is_read_from_its_first_line():
    body = (
        "[10:00:01] Starting 'bundle'...\n"
        "[10:00:02] Finished 'bundle' after 1.1 s\n"
        "[10:00:02] Starting 'minify'...\n"
        "[10:00:03] Finished 'minify' after 0.9 s\n"
        "\n"
        "  Bundle size budget is over by 2.1 kB\n"
        "  Bundle size: 52.1 kB\n"
        "  Budget:      50 kB\n"
    )
    doc = _doc(_travis("./scripts/size-check", body))
    assert _top(doc)[0] == 11  # "Bundle size budget is over", not the first line kept


def test_a_step_echoed_inside_a_failing_step_belongs_to_it():
    log = (
        "$ yarn install\ndone\n"
        "$ yarn ci\n"
        "yarn run v1.22.0\n"
        "$ node scripts/check-bundle.js && node scripts/publish-dry.js\n"
        "[10:00:02] Finished 'bundle' after 1.1 s\n"
        "[10:00:03] Finished 'minify' after 0.9 s\n"
        "\n"
        "  Bundle size budget is over by 2.1 kB\n"
        "  Budget:      50 kB\n"
        "error Command failed with exit code 3.\n"
        "info Visit https://yarnpkg.com/en/docs/cli/run for documentation about this command.\n"
        'The command "yarn ci" exited with 1.\n'
    )
    doc = _doc(log)
    assert doc["step"]["command"] == "yarn ci"
    assert _top(doc)[0] == 9


def test_lines_inside_a_pytest_failure_block_are_classed_by_its_exception():
    # most tests fail on an assertion; one prints a long connection error in its traceback
    blocks = "".join(
        f"___________________________ test_route_{k} ___________________________\n"
        f"    def test_route_{k}():\n>       assert render({k}) == 'ok'\n"
        f"E       AssertionError: assert 'fail' == 'ok'\n\ntests/test_routes.py:{10 + k}: AssertionError\n"
        for k in range(4)
    )
    conn = (
        "___________________________ test_ping ___________________________\n"
        "    def test_ping():\n>       requests.get('http://api.example.com/ping')\n"
        + "E   urllib3.exceptions.NewConnectionError: Failed to establish a new connection\n"
        * 6
        + "E   requests.exceptions.ConnectionError: Max retries exceeded with url: /ping\n\n"
        "tests/test_ping.py:5: ConnectionError\n"
    )
    log = (
        "============================= test session starts ==============================\n"
        "collected 9 items\n\n"
        "=================================== FAILURES ===================================\n"
        f"{blocks}{conn}"
        "=========================== short test summary info ============================\n"
        + "".join(
            f"FAILED tests/test_routes.py::test_route_{k} - AssertionError: assert 'fail' == 'ok'\n"
            for k in range(4)
        )
        + "FAILED tests/test_ping.py::test_ping - requests.exceptions.ConnectionError: Max retries\n"
        "========================= 5 failed, 4 passed in 1.20s ==========================\n"
        "##[error]Process completed with exit code 1.\n"
    )
    assert _doc(log)["class"] == "test"


def test_timeouts_said_by_a_runner_or_an_exit_status_of_124():
    body = "Acceptance: checkout flow\n.\nTests timed out\nrake aborted!\nCommand failed with status (124): [node run-qunit.js ...]\n"
    doc = _doc("$ bundle exec rake qunit:test\n" + body)
    assert doc["class"] == "timeout"
    assert 4 in _top(doc)


def test_a_panic_in_a_programs_main_thread_is_not_a_failing_test():
    body = (
        "Compiling installer v0.1.0\n"
        "Finished release [optimized] target(s) in 31.2s\n"
        "thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: "
        'Os { code: 2, kind: NotFound, message: "No such file or directory" }\', src/main.rs:12:5\n'
    )
    doc = _doc(_travis("make image", body, 101))
    assert doc["class"] != "test"


def test_a_go_package_whose_tests_do_not_compile_is_a_build_failure():
    body = (
        "ok  \texample.com/app/store\t0.041s\n"
        "# example.com/app/api\n"
        "api/handler_test.go:14:2: undefined: newRouter\n"
        "FAIL\texample.com/app/api [build failed]\n"
        "make: *** [test] Error 2\n"
    )
    assert _doc(_travis("make test", body, 2))["class"] == "build"


def test_an_unresolved_jvm_dependency_is_dependency():
    body = (
        "[info] Resolving org.example#core_2.13;1.4.0-SNAPSHOT ...\n"
        "[warn] \t::::::::::::::::::::::::::::::::::::::::::::::\n"
        "[warn] \t::          UNRESOLVED DEPENDENCIES         ::\n"
        "sbt.ResolveException: unresolved dependency: org.example#core_2.13;1.4.0-SNAPSHOT: not found\n"
        "\tat sbt.IvyActions$.resolve(IvyActions.scala:320)\n"
    )
    _expect("sbt publishLocal", body, "dependency", 9)


def test_a_failed_download_explains_the_missing_files_after_it():
    body = (
        "Cloning into 'toolchain'...\n"
        "fatal: unable to access 'https://git.example.org/toolchain/': Could not resolve host: git.example.org\n"
        "/home/ci/run.sh: line 12: cd: toolchain: No such file or directory\n"
        "make: *** No rule to make target 'install'.  Stop.\n"
        "/home/ci/run.sh: line 14: ./configure: No such file or directory\n"
    )
    _expect("./ci/run.sh", body, "network", 7, code=127)


def test_a_command_named_for_what_it_checks_leans_the_class_when_the_output_has_no_known_shape():
    body = '[debug] Collect entries.\n** (throw) "entries not in alphabetical order: zeta, alpha"\n    check.exs:9: Lists.check_order/1\n'
    _expect("mix run scripts/check.exs", body, "lint")
    _expect(
        "./ci/run-e2e-tests.sh",
        "browser session ended\nscenario 'checkout' did not finish\n",
        "test",
    )
    # a known tool in the command or a known shape in the output still decide
    _expect(
        "./ci/check.sh", "src/app.c:3:10: fatal error: app.h: No such file or directory\n", "build"
    )


def test_an_eslint_summary_with_zero_errors_is_not_a_lint_failure():
    body = (
        "> app@1.0.0 test /home/ci/app\n> node scripts/site.js\n\n"
        "/home/ci/app/src/menu.js\n  4:7  warning  'x' is assigned a value but never used  no-unused-vars\n\n"
        "✖ 1 problem (0 errors, 1 warning)\n\n"
        'Building sites … Error: failed to render pages: render of "page" failed: template: docs/single.html:12: function "relref" not defined\n'
        "npm ERR! code ELIFECYCLE\n"
    )
    doc = _doc(_travis("npm test", body))
    assert doc["class"] != "lint"


def test_the_details_after_an_error_header_far_from_the_exit_are_read():
    # a test runner reports early, then a long tail of other output before the step exits
    head = (
        "PHPUnit 9.6.0 by Sebastian Bergmann and contributors.\n\n"
        "There were 2 errors:\n\n"
        "1) App\\Tests\\InvoiceTest::testTotals\n"
        "TypeError: Argument 1 passed to App\\Invoice::add() must be of the type int\n\n"
    )
    _expect("vendor/bin/phpunit", head + _FAR, "test", 10)


def test_a_line_read_late_belongs_to_the_step_that_printed_it():
    log = (
        "$ ./setup-tools.sh\n"
        "/home/ci/setup-tools.sh: line 4: yarn: command not found\n"
        "tools ready\n"
        "$ xcodebuild -scheme App -destination 'platform=iOS Simulator,name=Phone 99' test\n"
        "Build settings from command line:\n"
        "xcodebuild: error: Unable to find a destination matching the provided destination specifier:\n"
        "\t\t{ platform:iOS Simulator, name:Phone 99 }\n"
        "Sources/App/Parser.swift:12:5: error: cannot find 'tokens' in scope\n"
        "The command \"xcodebuild -scheme App -destination 'platform=iOS Simulator,name=Phone 99' test\" exited with 70.\n"
    )
    doc = _doc(log)
    assert doc["class"] == "build"
    assert 2 not in _top(doc)


def test_a_failed_clone_in_a_step_that_went_on_explains_the_next_steps_missing_files():
    log = (
        "$ ./ci/install-deps.sh\n"
        "Cloning into 'vendor/toolkit'...\n"
        "fatal: unable to access 'https://git.example.org/toolkit/': Empty reply from server\n"
        "/home/ci/install-deps.sh: line 9: cd: vendor/toolkit: No such file or directory\n"
        "$ ./ci/test.sh\n"
        "/home/ci/build.sh: line 104: vendor/toolkit/run: No such file or directory\n"
        'The command "./ci/test.sh" exited with 127.\n'
    )
    doc = _doc(log)
    assert doc["class"] == "network"
    assert 3 in _top(doc)


def test_stylish_formatter_findings_and_runner_counts_in_their_own_words():
    body = "src/site.css\n 63:1  ✖  Unexpected missing end-of-source newline   no-missing-end-of-source-newline\n"
    _expect("./node_modules/.bin/csscheck src", body, "lint", 6)
    body = "running 40 specs\nfailed 2 and passed 38 tests in 1.2 seconds\n  parses empty input\n  TypeError: x is undefined\n"
    _expect("node ./bin/runner", body, "test")


def test_a_tool_named_in_an_install_tree_is_not_a_finding():
    log = (
        "$ npm install\n"
        "├─┬ stylelint@14.0.0\n│ └── stylelint-config-standard@24.0.0\n"
        "$ npm test\n> app@1.0.0 test /home/ci/app\n> node test/run.js\n\n"
        "  1) renders the menu\n     AssertionError: expected 2 to equal 3\n"
        "npm ERR! Test failed.  See above for more details.\n"
        'The command "npm test" exited with 1.\n'
    )
    doc = _doc(log)
    assert doc["class"] == "test"
    assert 2 not in _top(doc, 8)


def test_a_github_exit_copied_from_the_web_view_and_a_coverage_threshold():
    log = (
        "Run python -m pytest --cov=app --cov-fail-under=90\n"
        "============================= test session starts ==============================\n"
        "collected 12 items\n\n"
        "tests/test_app.py ............                                           [100%]\n\n"
        "Name          Stmts   Miss  Cover\n"
        "TOTAL           120     30    75%\n"
        "Coverage failure: total of 75 is less than fail-under=90\n"
        "============================== 12 passed in 0.41s ==============================\n"
        "Error: Process completed with exit code 2.\n"
    )
    doc = _doc(log)
    assert doc["step"] is not None and doc["step"]["exit_code"] == 2
    assert doc["class"] == "test"
    assert _top(doc)[0] == 9


def test_the_script_npm_echoed_last_is_the_command_that_failed():
    body = (
        "> site@2.0.0 test /home/ci/site\n> npm-run-all lint docs-build\n\n"
        "> site@2.0.0 lint /home/ci/site\n> eslint js/\n\n"
        "> site@2.0.0 docs-build /home/ci/site\n> hugo --cleanDestinationDir\n\n"
        'Building sites … ERROR 2024/06/01 10:00:00 [en] REF_NOT_FOUND: Ref "/docs/intro": page not found\n'
        "npm ERR! code ELIFECYCLE\n"
        "npm ERR! site@2.0.0 docs-build: `hugo --cleanDestinationDir`\n"
    )
    doc = _expect("npm test", body, "build", 15)
    assert "the failing step ran build-tool" in doc["reasons"]


def test_a_go_test_failure_message_is_read_with_its_test():
    body = (
        "ok  \texample.com/app/store\t0.012s\n"
        "--- FAIL: TestRouter (0.00s)\n"
        "    router_test.go:22: got status 404, want 200\n"
        "FAIL\nFAIL\texample.com/app/api\t0.031s\nFAIL\n"
    )
    doc = _expect("go test ./...", body, "test", 8)
    assert 6 not in _top(doc)  # a passing package is no evidence


def test_the_exception_that_ends_a_traceback_is_the_first_evidence():
    log = (
        "##[group]Run python scripts/make_pages.py\npython scripts/make_pages.py\n##[endgroup]\n"
        "Rendering pages...\n"
        "Traceback (most recent call last):\n"
        '  File "/home/runner/work/site/site/scripts/make_pages.py", line 30, in <module>\n'
        "    main()\n"
        '  File "/home/runner/work/site/site/scripts/make_pages.py", line 18, in render\n'
        "    return TEMPLATE.format(**meta)\n"
        "KeyError: 'summary'\n"
        "##[error]Process completed with exit code 1.\n"
    )
    assert _top(_doc(log))[0] == 10


def test_code_that_does_not_compile_explains_the_tests_that_then_fail():
    body = (
        "[ 50%] Building CXX object tests/CMakeFiles/unit.dir/test_parser.cpp.o\n"
        "/home/ci/app/tests/test_parser.cpp:14:5: error: 'parse_all' was not declared in this scope\n"
        "make[2]: *** [tests/CMakeFiles/unit.dir/build.make:76: tests/CMakeFiles/unit.dir/test_parser.cpp.o] Error 1\n"
        "Test project /home/ci/app/build\n"
        "    Start 1: unit\n"
        "Could not find executable /home/ci/app/build/tests/unit\n"
        "1/1 Test #1: unit .............................***Not Run   0.00 sec\n\n"
        "0% tests passed, 1 tests failed out of 1\n\n"
        "The following tests FAILED:\n\t  1 - unit (Not Run)\n"
        "Errors while running CTest\n"
    )
    _expect("make -k; ctest --output-on-failure", body, "build", 7)


def test_a_line_a_terminal_overwrote_does_not_split_the_last_block():
    body = (
        "bundling\n\n"
        "  Bundle size budget is over by 2.1 kB\n"
        "  progress 10%\r  progress 100%\n"
        "  Budget:      50 kB\n"
    )
    doc = _doc(_travis("./scripts/size-check", body))
    assert _top(doc)[0] == 8


def test_a_failure_said_only_with_failed_or_timed_out_is_seen_far_from_the_exit():
    head = "* checking tests ...\n  Running 'testthat.R'\nRunning the tests in 'tests/testthat.R' failed.\n"
    _expect("R CMD check pkg.tar.gz", head + _FAR, "test", 8)


# A step's command, its output, the class, a line that must be in the top three, the exit code
SHAPES = [
    pytest.param(
        "./ci/fetch-deps.sh",
        "Cloning into 'deps/lib'...\nfatal: unable to access 'https://git.example.org/lib/': Empty reply from server\n",
        "network",
        7,
        128,
        id="git-cannot-reach-its-remote",
    ),
    pytest.param(
        "docs-checker *.md",
        "README.md:214:Line longer than 80 characters.\n",
        "lint",
        6,
        1,
        id="a-location-in-a-documentation-file",
    ),
    pytest.param(
        "stack test --fast",
        "pandoc-tests: 1 out of 40 tests did not pass\n",
        "test",
        None,
        1,
        id="a-test-runner-named-by-the-command",
    ),
    pytest.param(
        "hlint src/",
        "src/Main.hs:12:1-20: Suggestion: Use <$>\n1 hint\n",
        "lint",
        None,
        1,
        id="a-linter-named-by-the-command",
    ),
    pytest.param(
        "vendor/bin/phpstan analyse src",
        "Line 12: Call to an undefined method Foo::bar().\n",
        "type",
        None,
        1,
        id="a-type-checker-named-by-the-command",
    ),
    pytest.param(
        "swift build && swift test",
        "The program 'swift' is currently not installed. To run 'swift' please ask your "
        "administrator to install the package 'swiftlang'\n",
        "environment",
        6,
        127,
        id="a-program-not-installed",
    ),
]


@pytest.mark.parametrize(("cmd", "body", "cls", "line", "code"), SHAPES)
def test_one_steps_output(cmd: str, body: str, cls: str, line: int | None, code: int) -> None:
    _expect(cmd, body, cls, line, code)


def test_the_same_error_printed_twice_is_quoted_once_at_its_first_copy():
    error = "  test/numbers.coffee:8:25: error: unexpected identifier"
    log = (
        "$ node ./bin/cake build\n"
        f"failed 1 and passed 120 tests\n\n{error}\n  eq 'bigint', typeof 42n\n\n"
        'The command "node ./bin/cake build" exited with 0.\n'
        "$ node ./bin/cake test\n"
        f"failed 1 and passed 120 tests\n\n{error}\n  eq 'bigint', typeof 42n\n\n"
        'The command "node ./bin/cake test" exited with 1.\n\nDone. Your build exited with 1.\n'
    )
    doc = _doc(log)
    top = _top(doc)
    assert top[0] == 4, doc["evidence"][:3]  # the first copy (log line 4) leads


def test_a_failure_printed_live_and_again_in_the_summary_has_both_copies_at_the_top():
    body = (
        "SessionTests\n"
        "    ✓ testStartsRequests (0.009 seconds)\n"
        "    ✗ testInvalidURLThrowsError, XCTAssertTrue failed\n"
        "    ✗ testRetryCountsAttempts, XCTAssertEqual failed: (1) is not equal to (2)\n"
        "    ✗ testRedirectsKeepHeaders, XCTAssertNotNil failed\n"
        "    ✗ testUploadReportsProgress, XCTAssertGreaterThan failed: (0) is not greater than (0)\n"
        "    ✓ testCancels (0.010 seconds)\n"
        f"{_FAR}"
        "Executed 1200 tests, with 2 failures (0 unexpected) in 80.1 seconds\n\n"
        "Failures:\n\n"
        "SessionTests\n\n"
        "  testInvalidURLThrowsError, XCTAssertTrue failed\n\n"
        "  /build/Tests/SessionTests.swift:550\n"
    )
    doc = _expect("xcodebuild test", body, "test")
    top = _top(doc)
    assert top[:2] == [8, 3019], doc["evidence"][:3]  # the live copy, then the summary's


def test_a_process_that_crashed_is_evidence_whatever_the_step_did():
    body = (
        "gcc -O2 -o bin/render src/render.c src/scene.c -lm\n"
        "bin/render scenes/basic.scene out/basic.ppm\n"
        "rendering 640x480, 4 samples\n"
        "loading textures from scenes/tex\n"
        "./scripts/render-all.sh: line 12:  4121 Segmentation fault      (core dumped) bin/render\n"
        "render-all: 3 of 4 scenes written\n"
        "cleaning up out/tmp\n"
        "done\n"
    )
    _expect("./scripts/render-all.sh", body, "unknown", 10)


def test_makes_recipe_trailer_is_not_the_error_it_follows():
    body = (
        " DEPEND app.d\n"
        " ERLC   store.erl session.erl queue.erl\n"
        "src/store.erl:40: field owner undefined in record item\n"
        "src/store.erl:52: variable 'Owner' is unbound\n"
        "src/session.erl:18: function close/1 undefined\n"
        "build.mk:210: recipe for target 'ebin/app.app' failed\n"
        "make[1]: *** [ebin/app.app] Error 1\n"
        "make[1]: Leaving directory '/build/app'\n"
        "build.mk:210: recipe for target 'app' failed\n"
        "make: *** [app] Error 2\n"
    )
    doc = _expect("make", body, "build")
    top = _top(doc)
    assert 8 in top and 11 not in top and 14 not in top, doc["evidence"][:3]


def test_erlc_errors_are_a_build_failure_whatever_the_make_target():
    body = (
        " ERLC   store.erl session.erl\n"
        "src/store.erl:12: Warning: variable 'Tmp' is unused\n"
        "src/session.erl:18: function close/1 undefined\n"
        "src/session.erl:31: variable 'Id' is unbound\n"
        "erlang.mk:410: recipe for target 'ebin/app.app' failed\n"
        "make: *** [ebin/app.app] Error 1\n"
    )
    _expect("make xref", body, "build", 8)


def test_an_editorconfig_checker_is_lint_under_a_script_named_for_tests():
    body = (
        "> pkg@2.0.0 ci /build/pkg\n"
        "> npm run --silent check-format\n"
        "\n"
        "README.md failed indent_style: found setting 'space', should be 'tab'\n"
        "src/index.js failed trim_trailing_whitespace: found trailing whitespace\n"
        "npm ERR! code ELIFECYCLE\n"
    )
    _expect("npm run ci-tests", body, "lint", 9)


def test_vims_test_runner_names_the_failing_test_and_a_wait_in_it_is_no_job_timeout():
    body = (
        "From test_window.vim:\n"
        "Executed Test_split_keeps_cursor() in   0.012 seconds\n"
        "Found errors in Test_split_keeps_cursor():\n"
        "function RunTheTest[40]..Test_split_keeps_cursor line 7: Expected 3 but got 4\n"
        "Caught exception in Test_split_keeps_cursor(): WaitFor() timed out after 5000 msec\n"
        "Executed 2 tests in   5.04 seconds\n"
        "1 FAILED:\n"
        "\n"
        "-------------------------------\n"
        "Executed:   812 Tests\n"
        "  FAILED:     1 Tests\n"
        "make[1]: *** [report] Error 1\n"
    )
    _expect("make test", body, "test", 8)


def test_karma_dropping_a_silent_browser_is_a_timeout():
    body = (
        "Chrome 75.0 (Linux 0.0.0): Executed 437 of 437 SUCCESS (9.4 secs / 7.3 secs)\n"
        "Firefox 68.0 (Linux 0.0.0) ERROR\n"
        "  Disconnected, because no message in 30000 ms.\n"
        "Firefox 68.0 (Linux 0.0.0): Executed 0 of 0 DISCONNECTED (30.002 secs / 0 secs)\n"
        "npm ERR! code ELIFECYCLE\n"
    )
    _expect("npm run test:browsers", body, "timeout", 7)


def test_the_line_after_a_failing_tests_bare_header_follows_it_in_the_evidence():
    body = (
        "test-suite: running 3 tests\n"
        "  writers\n"
        "    markdown:                                               OK (0.02s)\n"
        "    html tables:                                            FAIL (0.06s)\n"
        "      \n"
        "      --------------------------------------------------------------\n"
        "      --- expected/tables.html\n"
        "      +++ build/tables.html\n"
        "      -  29 </table>\n"
        "      +  29 </table\n" + _FAR + "1 out of 3 tests failed (0.31s)\n"
        "Test suite test-suite: FAIL\n"
    )
    doc = _expect("stack test", body, "test")
    assert _top(doc)[:2] == [9, 12], doc["evidence"][:3]


def test_the_error_above_a_javascript_stack_trace_is_evidence():
    body = (
        "failed 2 and passed 310 tests in 4.1 seconds\n"
        "\n"
        "  parses numeric literals\n"
        "  TypeError: parseLiteral is not a function\n"
        "    at checkLiteral (/build/repo/test/literals.js:12:5)\n"
        "    at Object.<anonymous> (/build/repo/test/literals.js:40:3)\n"
        "    at runTests (/build/repo/tasks/test.js:88:22)\n"
        "\n" + "".join(f"  {{ kind: 'Literal', start: {k} }}\n" for k in range(400))
    )
    _expect("node ./tasks/test.js", body, "test", 9)


def test_a_download_that_the_server_does_not_have_is_a_dependency_failure():
    body = (
        "Installing package zlib\n"
        "* Requesting https://pkg.example.org/x86_64/zlib.tar.gz\n"
        "88.00 KB / 88.00 KB [=====================] 100.00 % 1.9 MB/s\n"
        "Installing package termcap\n"
        "* Requesting https://pkg.example.org/x86_64/termcap.sig\n"
        "* Failure 404 Not Found\n"
        "thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: NotFound'\n"
        "make[1]: *** [build/root.img] Error 101\n"
    )
    _expect("make image", body, "dependency", 11)


def test_a_tool_refusing_an_unknown_switch_is_a_configuration_error():
    body = (
        "Illegal switch 'q' specified!\n"
        "Synopsis:\n"
        "    run-suite [options] [files] [directories]\n"
        "\n"
        "Options:\n"
        "    -j<workers> Run up to <workers> tests in parallel.\n"
        "    -v          Verbose.\n"
    )
    _expect("./bin/run-suite -q tests/", body, "configuration", 6)


def test_the_source_line_under_a_traceback_frame_is_code_not_evidence():
    body = (
        "syncing 4 mirrors\n"
        "Traceback (most recent call last):\n"
        '  File "/build/tools/sync.py", line 88, in <module>\n'
        "    main()\n"
        '  File "/build/tools/sync.py", line 61, in fetch\n'
        '    raise RuntimeError("mirror failed: " + reason)\n'
        "RuntimeError: mirror failed: checksum mismatch for index.json\n"
    )
    doc = _expect("python tools/sync.py", body, "unknown")
    errors = [e["line"] for e in doc["evidence"] if e["kind"] == "error"]
    assert errors[0] == 12 and 11 not in errors, doc["evidence"]
