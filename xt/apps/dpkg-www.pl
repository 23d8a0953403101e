# dpkg-www 2.64 (Debian's /usr/lib/cgi-bin/dpkg): a bash CGI (not perl:
# Kamado's fork, registry and perlrun modes hand it to exec) that runs
# dpkg, dpkg-query and grep-dctrl over the machine's package database;
# GET queries by package, file and section. Laid out as dpkg.cgi: Kamado
# takes only files with a script extension as scripts.
my $SCRIPT = '/usr/lib/cgi-bin/dpkg';
{
    source  => 'Debian dpkg-www',
    missing => sub { deb_missing('dpkg-www', $SCRIPT) },
    layout  => sub {
        my ($l) = @_;
        put("$l->{dir}/dpkg.cgi", mirror_text_file($SCRIPT), 0755);
    },
    session => [
        { user => 'alice', get => '/cgi-bin/dpkg-www/dpkg.cgi' },
        { user => 'bob',   get => '/cgi-bin/dpkg-www/dpkg.cgi?query=perl-base' },
        { user => 'carol', get => '/cgi-bin/dpkg-www/dpkg.cgi?query=/usr/bin/perl' },
        { user => 'alice', get => '/cgi-bin/dpkg-www/dpkg.cgi?query=no-such-package-xyz' },
        { user => 'bob',   get => '/cgi-bin/dpkg-www/dpkg.cgi?query=libcgi-pm-perl&type=status' },
    ],
};
