//! The proptest profile of the kernel's property tests, as
//! `tests/conftest.py` sets Hypothesis's: with `CI` set, a fixed seed and no
//! file written (every run plays the same cases); locally a random seed,
//! printed on a failure with the command that replays the same cases
//! (`PROPTEST_RNG_SEED=...`).

use std::hash::BuildHasher;

use proptest::test_runner::{Config as ProptestConfig, RngSeed};

/// `cases` cases a test (`PROPTEST_CASES` when set, for a longer run):
/// derandomized to `ci_seed` under `CI`, else from `PROPTEST_RNG_SEED` when
/// set, else random (printed, so that a failure says how to replay it; the
/// test harness shows it only on a failure). `test` names the test target
/// in the replay command.
pub fn profile(cases: u32, ci_seed: u64, test: &str) -> ProptestConfig {
    let default = ProptestConfig::default();
    let base = ProptestConfig {
        cases: if std::env::var_os("PROPTEST_CASES").is_some() {
            default.cases
        } else {
            cases
        },
        failure_persistence: None,
        ..default
    };
    if std::env::var_os("CI").is_some() {
        return ProptestConfig {
            rng_seed: RngSeed::Fixed(ci_seed),
            ..base
        };
    }
    let seed = match base.rng_seed {
        RngSeed::Fixed(seed) => seed,
        RngSeed::Random => std::collections::hash_map::RandomState::new().hash_one(0u8),
    };
    eprintln!("replay: PROPTEST_RNG_SEED={seed} cargo test -p ramino-core --test {test}");
    ProptestConfig {
        rng_seed: RngSeed::Fixed(seed),
        ..base
    }
}
