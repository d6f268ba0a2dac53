use mlx::{ops, Array};

#[test]
fn smoke() {
    let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let b = ops::add(&a, &a).unwrap();
    assert_eq!(b.to_vec::<f32>().unwrap(), vec![2.0, 4.0, 6.0, 8.0]);
    println!("{b}");
    println!("{:?}", mlx::build_info());
}
