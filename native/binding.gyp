{
  "targets": [
    {
      "target_name": "revloop_spawn",
      "sources": ["spawn.c"],
      "cflags": ["-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    }
  ]
}
