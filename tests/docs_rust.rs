//! The Rust blocks of docs/rust.md, each compiled and run as written (`cargo test --test
//! docs_rust`). pkg/test/docs-examples.test.mjs checks that every block of the page is here, line
//! for line (so rustfmt skips them): change both together. README.md's Rust block is a doctest
//! (src/lib.rs includes the README).

#[test]
#[rustfmt::skip] // as the page prints it
fn greedy_slice() -> Result<(), ctxpack_core::CtxpackError> {
    use ctxpack_core::{Budget, GreedySlice, Item, Slicer};

    let items = [Item::new(100, 0.9), Item::new(10, 0.5), Item::new(0, 0.1)];
    let s = GreedySlice.slice(&items, &Budget::new(100))?;
    assert_eq!(s.selected, [2, 1]); // zero-token first, then the densest; item 0 no longer fits
    assert_eq!(s.decisions[0].code(), "budget_exceeded");
    Ok(())
}

#[test]
#[rustfmt::skip] // as the page prints it
fn knapsack_slice() -> Result<(), ctxpack_core::CtxpackError> {
    use ctxpack_core::{Budget, Item, KnapsackSlice, Slicer};

    let items = [Item::new(60, 0.6), Item::new(40, 0.4), Item::new(10, 0.2)];
    let s = KnapsackSlice::new(1)?.slice(&items, &Budget::new(100))?;
    assert_eq!(s.selected, [1, 0]);
    assert_eq!(s.decisions[2].code(), "not_in_optimal_set");
    Ok(())
}

#[test]
#[rustfmt::skip] // as the page prints it
fn count_constrained_knapsack_slice() -> Result<(), ctxpack_core::CtxpackError> {
    use ctxpack_core::{Budget, CountConstrainedKnapsackSlice, CountQuotaEntry, Item, KnapsackSlice,
        ScarcityBehavior, Slicer};

    let items = [
        Item::new(900, 0.2).with_kind("system"),
        Item::new(100, 0.9).with_kind("doc"),
        Item::new(100, 0.8).with_kind("doc"),
    ];
    let slice = CountConstrainedKnapsackSlice::new(
        vec![CountQuotaEntry::new("system", 1, 1), CountQuotaEntry::new("doc", 0, 1)],
        KnapsackSlice::new(1)?,
        ScarcityBehavior::Degrade,
    )?;
    let s = slice.slice(&items, &Budget::new(1100))?;
    assert_eq!(s.selected, [0, 1]); // the system prompt is required; docs are capped at 1
    assert_eq!(s.decisions[2].code(), "count_cap_exceeded");
    Ok(())
}

#[test]
#[rustfmt::skip] // as the page prints it
fn greedy_packer() -> Result<(), ctxpack_core::CtxpackError> {
    use ctxpack_core::{Budget, GreedyPacker, Item, Slicer};

    let items = [Item::new(70, 0.9), Item::new(50, 0.8), Item::new(40, 0.7), Item::new(30, 0.6)];
    let s = GreedyPacker::new(1).slice(&items, &Budget::new(100))?;
    assert_eq!(s.selected, [0]); // 50 does not fit: one miss and the packer stops
    assert_eq!(s.decisions[3].code(), "skip_limit_reached");
    Ok(())
}

#[test]
#[rustfmt::skip] // as the page prints it
fn groups_and_dependencies() -> Result<(), ctxpack_core::CtxpackError> {
    use ctxpack_core::{Budget, DependencyMode, ExactKnapsackSlice, GroupedStrategy, Groups, Item};

    let items = [
        Item::new(120, 0.9).with_kind("tool_call"),   // 0
        Item::new(900, 0.4).with_kind("tool_result"), // 1: goes in with 0
        Item::new(300, 0.6),                          // 2
        Item::new(80, 0.8),                           // 3: needs the call (0)
    ];
    let groups = Groups::from_labels([Some("call-1"), Some("call-1"), None, None])
        .depends_on(3, [0])?
        .with_mode(DependencyMode::Require);

    let greedy = groups.slice(&GroupedStrategy::Greedy, &items, &Budget::new(1000))?;
    assert_eq!(greedy.selection.selected, [2]); // call + result need 1020 tokens
    let codes: Vec<_> = greedy.selection.decisions.iter().map(|d| d.code()).collect();
    assert_eq!(codes, ["group_excluded", "group_excluded", "scored", "dependency_excluded"]);

    let exact = GroupedStrategy::Exact(ExactKnapsackSlice::new());
    let s = groups.slice(&exact, &items, &Budget::new(1100))?;
    assert_eq!(s.selection.selected, [0, 1, 3]); // the pair, then what needs it
    assert_eq!(s.repaired, Some(false)); // the optimum already honoured the dependency
    Ok(())
}
