  def main(args: Array[String]): Unit = {

    import neuroflow.core.Activators.Double._
    import neuroflow.core._
    import neuroflow.dsl._
    import neuroflow.nets.cpu.DenseNetwork._
    import neuroflow.application.plugin.Notation._

    implicit val weights = WeightBreeder[Double].normal(μ = 0.0, σ = 0.1)

    val (g, h) = (Sigmoid, Sigmoid)

    val net = Network(layout = Vector(2) :: Dense(3, g) :: Dense(1, h) :: SquaredError())


    val xs = Seq(->(0.0, 0.0), ->(0.0, 1.0), ->(1.0, 0.0), ->(1.0, 1.0))
    val ys = Seq(->(0.0), ->(1.0), ->(1.0), ->(0.0))

    /*
     It's the XOR-Function :-).
     Or: the net learns to add binary digits modulo 2.
     */

    net.train(xs, ys)

    val x = ->(0.0, 1.0)
    val result = net(x)
    println(result) // ~0.5

  }
