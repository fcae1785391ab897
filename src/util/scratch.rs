//! Per-thread scratch lists for query answers. A query gathers its answer
//! in a list that keeps its capacity from one query to the next and returns
//! a copy of exactly the answer's size: one allocation per answer instead of
//! one for each doubling of a list grown from empty.

use std::cell::RefCell;
use std::thread::LocalKey;

/// A kind of item with its own per-thread scratch list.
pub(crate) trait ScratchItem: Sized + 'static {
    /// This thread's list of items of this kind.
    fn list() -> &'static LocalKey<RefCell<Vec<Self>>>;
}

/// Gives each type named its own per-thread scratch list.
macro_rules! scratch_items {
    ($($item:ty),*) => {$(
        impl $crate::util::scratch::ScratchItem for $item {
            fn list() -> &'static ::std::thread::LocalKey<::std::cell::RefCell<Vec<Self>>> {
                thread_local! {
                    static LIST: ::std::cell::RefCell<Vec<$item>> =
                        const { ::std::cell::RefCell::new(Vec::new()) };
                }
                &LIST
            }
        }
    )*};
}

pub(crate) use scratch_items;

/// Calls `gather` with an empty list that keeps its capacity between calls
/// on this thread. A call made while another for the same kind of item is
/// running (a query inside a query's predicate) gets a fresh list.
pub(crate) fn with_scratch<T: ScratchItem, R>(gather: impl FnOnce(&mut Vec<T>) -> R) -> R {
    T::list().with(|scratch| match scratch.try_borrow_mut() {
        Ok(mut list) => {
            list.clear();
            gather(&mut list)
        }
        Err(_) => gather(&mut Vec::new()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Item(u32);

    scratch_items!(Item);

    #[test]
    fn nested_calls_get_their_own_empty_list() {
        with_scratch(|outer: &mut Vec<Item>| {
            outer.extend([Item(1), Item(2)]);
            let inner = with_scratch(|inner: &mut Vec<Item>| {
                assert!(inner.is_empty());
                inner.push(Item(9));
                inner.clone()
            });
            assert_eq!(inner, [Item(9)]);
            assert_eq!(outer, &[Item(1), Item(2)]);
        });
        with_scratch(|again: &mut Vec<Item>| assert!(again.is_empty()));
    }
}
