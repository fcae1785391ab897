//! Low-level helpers the pipeline shares: chunked parallel work over
//! disjoint parts ([`parallel`]), linear-time sorting by integer keys
//! ([`sort`]) and prefetching ([`prefetch`]). The only place with `unsafe`
//! code, each block with the reason it is sound.
#![allow(unsafe_code)]

pub(crate) mod parallel;
pub(crate) mod prefetch;
pub(crate) mod sort;
