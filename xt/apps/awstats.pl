# AWStats 7.8 (Debian's awstats.pl): a 20,000-line log analyser run as a
# CGI, hundreds of package globals, package-less data files (browsers.pm,
# robots.pm, ...) `require`d through @INC, many exits; ?update=1 parses the
# access log and writes its history file, then every report page is read
# from that file.
my $SCRIPT = '/usr/lib/cgi-bin/awstats.pl';
{
    source  => 'Debian awstats',
    missing => sub { deb_missing('awstats', $SCRIPT, '/usr/share/awstats/lib/browsers.pm') },
    layout  => sub {
        my ($l) = @_;
        put("$l->{dir}/awstats.pl", mirror_text_file($SCRIPT), 0755);
        put("$l->{dir}/awstats.xt.conf", <<"CONF");
LogFile="$l->{final_data}/access.log"
LogType=W
LogFormat=1
SiteDomain="localhost"
HostAliases="localhost 127.0.0.1"
DNSLookup=0
DirData="$l->{final_data}/db"
DirCgi="/cgi-bin/awstats"
DirIcons="/awstats-icon"
AllowToUpdateStatsFromBrowser=1
AllowFullYearView=3
SaveDatabaseFilesWithPermissionsForEveryone=0
PurgeLogFile=0
KeepBackupOfHistoricFiles=0
DefaultFile="index.html"
LoadPlugin="tooltips"
CONF
        mkdir "$l->{data}/db";
        # 139 requests from 6 hosts over the two hours before the run
        my @hosts = map { "192.0.2.$_" } 10 .. 15;
        my @pages = ('/', '/index.html', '/about.html', '/news/2026.html', '/img/logo.png', '/missing.html', '/search?q=leeks');
        my @agents = ('Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0',
                      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0 Safari/537.36',
                      'Googlebot/2.1 (+http://www.google.com/bot.html)');
        my $log = '';
        my $t = time - 2 * 3600;
        for my $i (0 .. 138) {
            my @tm = gmtime($t + $i * 50);
            my $date = sprintf '%02d/%s/%04d:%02d:%02d:%02d +0000', $tm[3],
                (qw(Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec))[ $tm[4] ], $tm[5] + 1900, @tm[2, 1, 0];
            my $page = $pages[ $i % @pages ];
            my $status = $page eq '/missing.html' ? 404 : 200;
            $log .= sprintf qq{%s - - [%s] "GET %s HTTP/1.1" %d %d "%s" "%s"\n}, $hosts[ $i % @hosts ], $date, $page,
                $status, 1000 + $i * 7, $i % 3 ? 'http://www.example.com/links.html' : '-', $agents[ $i % @agents ];
        }
        put("$l->{data}/access.log", $log);
    },
    normalise => [ sub { $_[0] =~ s/\b(\d{2} \w{3} \d{4} - )\d\d:\d\d\b/$1<hh:mm>/gr } ],
    session => [
        { user => 'alice', get => '/cgi-bin/awstats/awstats.pl?config=xt&update=1' },
        { user => 'bob',   get => '/cgi-bin/awstats/awstats.pl?config=xt' },
        { user => 'carol', get => '/cgi-bin/awstats/awstats.pl?config=xt&output=urldetail' },
        { user => 'alice', get => '/cgi-bin/awstats/awstats.pl?config=xt&output=allhosts' },
        { user => 'bob',   get => '/cgi-bin/awstats/awstats.pl?config=xt&output=browserdetail' },
        { user => 'carol', get => '/cgi-bin/awstats/awstats.pl?config=xt&framename=mainleft' },
        { user => 'alice', get => '/cgi-bin/awstats/awstats.pl?config=nosuchconfig' },
    ],
};
