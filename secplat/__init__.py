"""The platform's shell: configuration, lake storage and the command-line entry point shared by every stage."""
