//! Rows for the wrappers generated from mlx-sys's `ops.def` (the unary ops MLX accepts for
//! every input are in `no_bad_input.rs`).

use mlx::{ops, Dtype};

use crate::fixtures::*;
use crate::{rows, Row};

pub fn rows() -> Vec<Row> {
    rows! {
        // Unary: what MLX refuses by dtype.
        "ops::negative" => ops::negative(&bools()), ["[negative]", "bool"];
        "ops::expm1" => ops::expm1(&complex()), ["[expm1]", "complex64"];
        "ops::sigmoid" => ops::sigmoid(&complex()), ["[sigmoid]", "complex64"];
        "ops::erf" => ops::erf(&complex()), ["[erf]", "complex64"];
        "ops::floor" => ops::floor(&complex()), ["[floor]", "complex64"];
        "ops::ceil" => ops::ceil(&complex()), ["[ceil]", "complex64"];
        // Binary: shapes (2) and (3) do not broadcast.
        "ops::add" => ops::add(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::subtract" => ops::subtract(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::multiply" => ops::multiply(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::divide" => ops::divide(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::floor_divide" => ops::floor_divide(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::remainder" => ops::remainder(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::power" => ops::power(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::maximum" => ops::maximum(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::minimum" => ops::minimum(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::equal" => ops::equal(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::not_equal" => ops::not_equal(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::greater" => ops::greater(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::greater_equal" => ops::greater_equal(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::less" => ops::less(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::less_equal" => ops::less_equal(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::logical_and" => ops::logical_and(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::logical_or" => ops::logical_or(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::logaddexp" => ops::logaddexp(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        "ops::arctan2" => ops::arctan2(&v2(), &v3()), ["broadcast", "(2)", "(3)"];
        // Reductions: an axis the array lacks; over all axes, an empty array where no
        // identity exists.
        "ops::sum_axes" => ops::sum_axes(&m23(), &[2], false), ["axis 2"];
        "ops::mean_axes" => ops::mean_axes(&m23(), &[2], false), ["axis 2"];
        "ops::max_axes" => ops::max_axes(&m23(), &[2], false), ["axis 2"];
        "ops::min_axes" => ops::min_axes(&m23(), &[2], false), ["axis 2"];
        "ops::prod_axes" => ops::prod_axes(&m23(), &[2], false), ["axis 2"];
        "ops::all_axes" => ops::all_axes(&m23(), &[2], false), ["axis 2"];
        "ops::any_axes" => ops::any_axes(&m23(), &[2], false), ["axis 2"];
        "ops::logsumexp_axes" => ops::logsumexp_axes(&m23(), &[2], false), ["axis 2"];
        "ops::var_axes" => ops::var_axes(&m23(), &[2], false), ["axis 2"];
        "ops::max" => ops::max(&empty(), false), ["[max]", "size 0"];
        "ops::min" => ops::min(&empty(), false), ["[min]", "size 0"];
        "ops::logsumexp" => ops::logsumexp(&empty(), false), ["[logsumexp]", "empty"];
        "ops::argmax_axis" => ops::argmax_axis(&m23(), -3, false), ["axis -3"];
        "ops::argmax" => ops::argmax(&empty(), false), ["[argmax]", "zero size"];
        "ops::argmin_axis" => ops::argmin_axis(&m23(), -3, false), ["axis -3"];
        "ops::argmin" => ops::argmin(&empty(), false), ["[argmin]", "zero size"];
        "ops::sort_axis" => ops::sort_axis(&m23(), 2), ["axis 2"];
        "ops::argsort_axis" => ops::argsort_axis(&m23(), 2), ["axis 2"];
        "ops::partition" => ops::partition(&m23(), 3, 1), ["[partition]", "kth 3"];
        "ops::argpartition" => ops::argpartition(&m23(), -4, 1), ["[argpartition]", "kth -4"];
        "ops::topk" => ops::topk(&ones(&[2, 3], Dtype::Float32), 4, 1), ["[topk]", "k=4"];
    }
}
