; An empty program: what vcore run costs by itself.
