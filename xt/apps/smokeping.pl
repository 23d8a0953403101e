# SmokePing 2.7.3's web front end (Debian smokeping): a `while (my $q =
# CGI::Fast->new)` loop around Smokeping::cgi, CGI::Carp fatalsToBrowser,
# $SIG{CHLD} set at the top, a configuration parsed on each request, pages
# from a template, graphs drawn by RRDs into an image cache (graphs carry
# the time they are drawn at: the cache is not compared, the pages are).
my $SCRIPT = '/usr/share/smokeping/smokeping.cgi';
{
    source  => 'Debian smokeping',
    missing => sub { deb_missing('smokeping', $SCRIPT, '/etc/smokeping/config.d/Targets') },
    ignore_files => qr{/data/smokeping/img/},
    layout  => sub {
        my ($l) = @_;
        # (Debian's /usr/lib/cgi-bin/smokeping.cgi is a shell wrapper that
        # passes the configuration as an argument: the script itself, its
        # default configuration named, as an administrator would lay it out)
        put(
            "$l->{dir}/smokeping.cgi",
            edit(
                mirror_text_file($SCRIPT),
                qr{\|\| "/etc/smokeping/config";} => qq{|| "$l->{final_data}/config";}
            ),
            0755
        );
        my $d = $l->{final_data};
        my $strip = sub { join '', grep { !/^#/ && !/^\@include/ } split /^/, mirror_text_file($_[0]) };
        put(
            "$l->{data}/config",
            $strip->('/etc/smokeping/config.d/General') =~
                s{http://some\.url/smokeping\.cgi}{http://localhost$l->{url}/smokeping.cgi}r
                . "sendmail = /usr/sbin/sendmail\nimgcache = $d/img\nimgurl = ../smokeping/images\ndatadir = $d/rrd\n"
                . "piddir = $d\nsmokemail = /etc/smokeping/smokemail\ntmail = /etc/smokeping/tmail\ndyndir = $d/rrd/__cgi\n"
                . join('', map { $strip->("/etc/smokeping/config.d/$_") } qw(Database Presentation Probes Targets))
        );
        put("$l->{data}/rrd/__cgi/.keep", '');
        put("$l->{data}/img/.keep", '');
    },
    session => [
        { user => 'alice', get => '/cgi-bin/smokeping/smokeping.cgi' },
        { user => 'bob',   get => '/cgi-bin/smokeping/smokeping.cgi?target=Local' },
        { user => 'carol', get => '/cgi-bin/smokeping/smokeping.cgi?target=Nope{pass}' },
        { user => 'alice', get => '/cgi-bin/smokeping/smokeping.cgi?target=Local;displaymode=n;start=2026-01-01' },
        { user => 'bob',   get => '/cgi-bin/smokeping/smokeping.cgi' },
    ],
};
