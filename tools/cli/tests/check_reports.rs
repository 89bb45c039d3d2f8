//! What `wavekit check` prints of a plain file's hazards: every report at the user's file and
//! line (in `__device__` helpers and templates too, never the checker's generated files), as
//! many as asked (`--max-reports`, `--all`), a summary by hazard and line, and `--json`.

#![cfg(feature = "simt")]

mod common;
use common::{check, check_stdout, line_no, line_of};

const F: &str = "kernels/helper_race.cu";

fn report_lines(t: &str) -> usize {
    t.lines()
        .filter(|l| l.starts_with("  ") && l.contains(" in helper_race (w"))
        .count()
}

#[test]
fn a_race_in_a_helper_names_the_users_file_and_line() {
    let (code, t) = check(F, &["--kernel", "helper_race", "--block", "64"]);
    assert_eq!(code, Some(1), "{t}");
    assert!(t.contains("SharedRace"), "{t}");
    assert!(t.contains(&line_of(F, "// RACE")), "{t}");
    assert!(t.contains(&line_of(F, "// READ")), "{t}");
    assert!(
        !t.contains("wrapper.cu") && !t.contains("wavekit-check-") && !t.contains("/src/d/"),
        "{t}"
    );
    // The summary counts each hazard at its line, per width.
    let summary = t
        .split("summary by hazard and line:")
        .nth(1)
        .expect("a summary");
    let race = format!("tests/plain/{F}:{}: ", line_no(F, "// RACE", 1));
    assert!(
        summary
            .lines()
            .any(|l| l.starts_with("  SharedRace at ") && l.contains(&race)),
        "{t}"
    );
    assert!(
        summary.contains(" at 32 lanes") && summary.contains(" at 64 lanes"),
        "{t}"
    );
}

#[test]
fn max_reports_caps_each_kind_and_all_shows_every_one() {
    let one = &[
        "--kernel",
        "helper_race",
        "--block",
        "64",
        "--max-reports",
        "1",
    ];
    let (_, capped) = check(F, one);
    assert!(
        capped.contains("more not shown: --max-reports N"),
        "{capped}"
    );
    let (_, all) = check(F, &["--kernel", "helper_race", "--block", "64", "--all"]);
    assert!(!all.contains("more not shown"), "{all}");
    assert!(
        report_lines(&all) > report_lines(&capped),
        "{capped}\n{all}"
    );
}

#[test]
fn json_gives_each_report_with_its_file_and_line() {
    let (code, out, err) = check_stdout(F, &["--kernel", "helper_race", "--block", "64", "--json"]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.starts_with("{\"schema\": 1, "), "{out}");
    assert_eq!(out.trim_end().matches('\n').count(), 0, "one line: {out}");
    assert!(
        out.contains("\"kernel\": \"helper_race(const i32*, i32*)\""),
        "{out}"
    );
    assert!(
        out.contains("\"width\": 32") && out.contains("\"width\": 64"),
        "{out}"
    );
    let race = |marker: &str| {
        format!(
            "\"kind\": \"SharedRace\", \"file\": \"{}\", \"line\": {}",
            common::fixture(F),
            line_no(F, marker, 1)
        )
    };
    assert!(
        out.contains(&race("// RACE")) || out.contains(&race("// READ")),
        "{}\n{out}",
        race("// RACE")
    );
    assert!(out.contains("\"outputs\": [{\"arg\": \"1\""), "{out}");
    assert!(out.contains("\"clean\": false"), "{out}");
}
