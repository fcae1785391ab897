//! Low-level helpers the pipeline shares: chunked parallel work over
//! disjoint parts ([`parallel`]), linear-time sorting by integer keys
//! ([`sort`]), prefetching ([`prefetch`]) and the lists queries gather
//! their answers in ([`scratch`]). The only place with `unsafe`
//! code, each block with the reason it is sound.
#![allow(unsafe_code)]

pub(crate) mod parallel;
pub(crate) mod prefetch;
pub(crate) mod scratch;
pub(crate) mod sort;
