"""The wheel holds native binaries (streamcheck/_prefix/): a platform wheel,
installed into platlib and tagged py3-none-<platform>, since no Python ABI is
involved. Everything else is in pyproject.toml."""
from setuptools import Distribution, setup
from wheel.bdist_wheel import bdist_wheel


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform


setup(distclass=BinaryDistribution, cmdclass={"bdist_wheel": PlatformWheel})
