pytest_plugins = ["confluent_binding.testing.pytest_plugin"]
