//! `with_pred!`: a `Predicate` resolved to one closure per kind outside a loop, so the loop is
//! compiled once per kind instead of matching on the kind at every element.

/// Runs `$body` with `$p` bound to a closure `T -> bool` for one fixed predicate, so the
/// loop in `$body` is compiled once per predicate kind with the kind resolved outside it.
macro_rules! with_pred {
    ($pred:expr, |$p:ident| $body:expr) => {{
        use Predicate as P;
        match $pred {
            P::Lt(v) => {
                let $p = move |x: T| x < v;
                $body
            }
            P::Le(v) => {
                let $p = move |x: T| x <= v;
                $body
            }
            P::Gt(v) => {
                let $p = move |x: T| x > v;
                $body
            }
            P::Ge(v) => {
                let $p = move |x: T| x >= v;
                $body
            }
            P::Eq(v) => {
                let $p = move |x: T| x == v;
                $body
            }
            P::Ne(v) => {
                let $p = move |x: T| x != v;
                $body
            }
            P::InRange(lo, hi) => {
                let $p = move |x: T| lo <= x && x < hi;
                $body
            }
        }
    }};
}

pub(crate) use with_pred;
