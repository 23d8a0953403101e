package Kamado::Bench::Run;
use 5.024;
use strict;
use warnings;

# What the side-by-side benchmarks (bench/run, bench/cgi, bench/dbi) share: servers
# started from their own config in a temporary directory, each in a
# session of its own, waited for by HTTP and stopped by PID (at the end,
# on die, on Ctrl-C, TERM or HUP); ab, bounded; the CPU a server's
# session used; medians; an Apache config with exactly N prefork
# children and nothing of /etc/apache2.

use Exporter 'import';
use HTTP::Tiny ();
use IO::Socket::INET ();
use POSIX qw(WNOHANG _exit setsid strftime);
use Time::HiRes qw(sleep time);

our @EXPORT_OK = qw(start_server stop_server stop_pid run_ab session_cpu_ticks children_cpu median
    progress find_program slurp write_file free_port apache_missing apache_conf apache_command
    kamado_missing $TICKS $HOST $APACHE_MODULES);

our $HOST = '127.0.0.1';
our $APACHE_MODULES = '/usr/lib/apache2/modules';    # Debian's
our $TICKS = POSIX::sysconf(POSIX::_SC_CLK_TCK()) || 100;    # /proc's CPU times are in these
our $NAME = $0 =~ s{.*/}{}r;    # for messages: bench/cgi, bench/dbi
my $START_TIMEOUT = 30;    # seconds for a server to answer HTTP
my $STOP_TIMEOUT  = 10;    # seconds between TERM and KILL

my $MAIN_PID = $$;    # END stops servers only in this process, not in a forked child
my %RUNNING;          # pid => name of every server started and not yet stopped
my $AB_PID;           # the ab running now, if any
$SIG{$_} = sub { die "$NAME: interrupted by SIG$_[0]\n" } for qw(INT TERM HUP);
END {
    if ($$ == $MAIN_PID) {
        local ($?, $!, $@);
        local @SIG{qw(INT TERM HUP)} = ('IGNORE') x 3;
        kill TERM => $AB_PID if $AB_PID;
        stop_pid($_) for keys %RUNNING;
    }
}

# start_server(name => NAME, command => [argv], dir => DIR, url => URL to
# poll, root => DIR to run in) -> { name, port, pid, log } once URL answers
# HTTP, or (undef, why not). The port is the caller's (free_port), in the
# command already: give it as port => PORT.
# Fork+exec in a session of its own: its process group for the signals (a
# terminal's Ctrl-C reaches only us, and Apache's TERM to its own group
# would otherwise be ours), and the session for the CPU count, which takes
# in the groups a server makes inside it (Kamado's generations).
sub start_server {
    my (%a) = @_;
    my $log = "$a{dir}/server.log";
    my $s = { name => $a{name}, port => $a{port}, log => $log };
    my $cmd = $a{command};
    progress("$a{name}: starting: @$cmd");
    my $pid = fork // die "$NAME: fork: $!\n";
    if (!$pid) {
        $SIG{$_} = 'DEFAULT' for qw(INT TERM HUP);
        setsid();
        chdir $a{root} if defined $a{root};
        $ENV{$_} = $a{env}{$_} for keys(($a{env} // {})->%*);
        open STDIN, '<', '/dev/null';
        open STDOUT, '>>', $log;
        open STDERR, '>&', \*STDOUT;
        exec { $cmd->[0] } @$cmd or print STDERR "exec $cmd->[0]: $!\n";
        _exit(127);
    }
    $RUNNING{$pid} = $a{name};
    $s->{pid} = $pid;
    my $deadline = time + $START_TIMEOUT;
    while (time < $deadline) {
        return $s if HTTP::Tiny->new(timeout => 2)->get($a{url})->{status} != 599;
        if (waitpid($pid, WNOHANG) == $pid) {
            delete $RUNNING{$pid};
            my ($last) = grep { /\S/ } reverse split /\n/, slurp($log);
            return (undef, sprintf 'exited at start (status %d): %s', $? >> 8, $last // 'no output');
        }
        sleep 0.1;
    }
    print STDERR map { "    | $_\n" } grep { defined } (split /\n/, slurp($log))[-10 .. -1];
    stop_server($s);
    return (undef, "did not answer within ${START_TIMEOUT}s");
}

sub stop_server {
    my ($s) = @_;
    my $pid = delete $s->{pid} or return;
    stop_pid($pid);
    progress("$s->{name}: stopped");
}

# TERM the PID we started (Apache, Starman and Kamado all stop their
# children on it); KILL its process group if it has not exited in time, and
# any of the group that outlives it.
sub stop_pid {
    my ($pid) = @_;
    delete $RUNNING{$pid};
    kill TERM => $pid;
    my $deadline = time + $STOP_TIMEOUT;
    while (waitpid($pid, WNOHANG) == 0) {
        if (time > $deadline) {
            warn "$NAME: pid $pid ignored TERM for ${STOP_TIMEOUT}s: KILL\n";
            kill KILL => -$pid;
            waitpid $pid, 0;
            last;
        }
        sleep 0.05;
    }
    $deadline = time + 2;
    sleep 0.05 while kill(0, -$pid) && time < $deadline;
    kill KILL => -$pid if kill 0, -$pid;
}

sub free_port {
    state %given;
    for (1 .. 50) {
        my $sock = IO::Socket::INET->new(LocalAddr => $HOST, LocalPort => 0, Listen => 1, ReuseAddr => 1)
            or die "$NAME: no ephemeral port on $HOST: $!\n";
        my $port = $sock->sockport;
        return $port unless $given{$port}++;
    }
    die "$NAME: no free port\n";
}

# run_ab(URL, N, CONCURRENCY) -> { rps, non2xx, connect, receive, length,
# exceptions } or (undef, why). Bounded: -s for each request, and the whole
# run stopped if it goes on longer than 5 requests a second would take
# (plus 30 s).
sub run_ab {
    my ($url, $n, $c) = @_;
    my $limit = 30 + int($n / 5);
    $AB_PID = open(my $fh, '-|') // die "$NAME: fork: $!\n";
    if (!$AB_PID) {
        open STDERR, '>&', \*STDOUT;
        exec 'ab', '-q', '-s', 20, '-c', $c // 10, '-n', $n, $url or print "exec ab: $!\n";
        _exit(127);
    }
    my $out = '';
    my $in_time = eval {
        local $SIG{ALRM} = sub { die "timeout\n" };
        alarm $limit;
        local $/;
        $out = <$fh> // '';
        alarm 0;
        1;
    };
    alarm 0;
    kill TERM => $AB_PID unless $in_time;
    close $fh;
    undef $AB_PID;
    die $@ if !$in_time && $@ ne "timeout\n";    # Ctrl-C and the like: on to END
    return (undef, "ab ran over ${limit}s; stopped") unless $in_time;
    my ($rps) = $out =~ /^Requests per second:\s+([\d.]+)/m
        or return (undef, 'ab: ' . ((grep { /\S/ } reverse split /\n/, $out)[0] // 'no output'));
    my %r = (rps => $rps, non2xx => $out =~ /^Non-2xx responses:\s+(\d+)/m ? $1 : 0);
    @r{qw(connect receive length exceptions)} =
        $out =~ /\(Connect: (\d+), Receive: (\d+), Length: (\d+), Exceptions: (\d+)\)/ ? ($1, $2, $3, $4) : (0) x 4;
    return \%r;
}

# The CPU ticks of the server's session (its own, see start_server), read
# from /proc, with what its processes' reaped children used (a CGI
# script's process); ab's from our own children's times (ab is reaped by
# run_ab).
sub session_cpu_ticks {
    my ($sid) = @_;
    my $ticks = 0;
    opendir my $proc, '/proc' or return 0;
    for my $pid (grep { /\A\d+\z/ } readdir $proc) {
        my $stat = slurp("/proc/$pid/stat");
        next unless $stat =~ /\)/;    # (gone since readdir)
        # (after the name, which may hold spaces and parentheses)
        my @f = split ' ', substr($stat, rindex($stat, ')') + 2);
        $ticks += $f[11] + $f[12] + $f[13] + $f[14] if @f > 14 && $f[3] == $sid;
    }
    return $ticks;
}

sub children_cpu { my (undef, undef, $user, $system) = times; return $user + $system }

sub median {
    my @v = sort { $a <=> $b } @_ or return undef;
    return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2;
}

sub progress { printf STDERR "[%s] %s\n", strftime('%H:%M:%S', localtime), $_[0] }

sub find_program {
    my ($name) = @_;
    # /usr/sbin too: apache2 lives there and is not in a user's PATH
    for my $d (split(/:/, $ENV{PATH} // ''), '/usr/sbin', '/sbin', '/usr/local/sbin') {
        return "$d/$name" if $d ne '' && -f "$d/$name" && -x _;
    }
    return undef;
}

sub slurp {
    my ($file) = @_;
    open my $fh, '<', $file or return '';
    local $/;
    return scalar <$fh>;
}

sub write_file {
    my ($file, $text) = @_;
    open my $fh, '>', $file or die "$NAME: $file: $!\n";
    print $fh $text;
    close $fh or die "$NAME: $file: $!\n";
}

# Why Apache with MODULE (a file in $APACHE_MODULES) cannot run SCRIPTS
# (mod_cgi execs them), or undef.
sub apache_missing {
    my ($module, @scripts) = @_;
    find_program('apache2') or return 'apache2 not installed (bench/install-peers)';
    for my $m ('mod_mpm_prefork.so', $module) {
        -e "$APACHE_MODULES/$m" or return "$APACHE_MODULES/$m not found (bench/install-peers)";
    }
    for my $script (@scripts) {
        -x $script or return "$script is not executable (chmod +x)";
    }
    return undef;
}

# apache_command(CONF, DIR) -> the argv that runs Apache on the config
# text CONF, written to DIR.
sub apache_command {
    my ($conf, $dir) = @_;
    write_file("$dir/httpd.conf", $conf);
    return [ find_program('apache2'), '-d', $dir, '-f', "$dir/httpd.conf", '-DFOREGROUND' ];
}

# apache_conf(kind => cgi|cgid|registry|perlrun, port, dir, cgi_bin => DIR
# served at /cgi-bin/, workers => N, perl => [lines for the parent's
# mod_perl setup, before the handler's PerlModule], env => { NAME =>
# VALUE } for the scripts, by the bench) -> the config's text: its own
# ServerRoot, exactly N prefork children, no access log.
sub apache_conf {
    my (%a) = @_;
    my ($kind, $port, $dir, $cgi_bin, $workers) = @a{qw(kind port dir cgi_bin workers)};
    # Run as root, Apache needs a user for its children; www-data can read
    # and execute the scripts (a checkout is world-readable).
    my $user = $> == 0 ? (getpwnam('www-data') ? 'www-data' : 'nobody') : undef;
    my $group = $user && ($user eq 'www-data' ? 'www-data' : 'nogroup');
    my $env = join '', map { "    SetEnv $_ \"$a{env}{$_}\"\n" } sort keys(($a{env} // {})->%*);
    my ($modules, $handler);
    if ($kind eq 'cgi') {
        # mod_cgi, what Debian's a2enmod cgi picks for prefork: the child
        # forks the script itself. When the request ends and the script has
        # closed its output but not yet been reaped, APR's cleanup sends it
        # TERM and sleeps 47 ms before looking again (free_proc_chain): a
        # cost of mod_cgi's, seen as a bimodal latency on hello.cgi.
        $modules = "LoadModule cgi_module $APACHE_MODULES/mod_cgi.so\n";
        $handler = "    Options +ExecCGI\n    AddHandler cgi-script .cgi\n";
    }
    elsif ($kind eq 'cgid') {
        # mod_cgid: a daemon of Apache's forks the scripts and reaps them;
        # the children talk to it through this socket.
        $modules = "LoadModule cgid_module $APACHE_MODULES/mod_cgid.so\nScriptSock \"$dir/cgisock\"\n";
        $handler = "    Options +ExecCGI\n    AddHandler cgi-script .cgi\n";
    }
    else {
        my $class = $kind eq 'registry' ? 'ModPerl::Registry' : 'ModPerl::PerlRun';
        # The handler is loaded in the parent so the children share it, as
        # a mod_perl setup does (startup.pl or PerlModule); the scripts
        # themselves compile in each child on its first request.
        $modules = "LoadModule perl_module $APACHE_MODULES/mod_perl.so\n" . join('', map { "$_\n" } ($a{perl} // [])->@*)
                 . "PerlModule $class\n";
        $handler = "    Options +ExecCGI\n    SetHandler perl-script\n"
                 . "    PerlResponseHandler $class\n    PerlOptions +ParseHeaders\n";
    }
    my $conf = <<"CONF";
# written by $NAME ($kind): exactly $workers prefork children, no access log
ServerRoot "$dir"
ServerName $HOST
Listen $HOST:$port
PidFile "$dir/httpd.pid"
DefaultRuntimeDir "$dir"
ErrorLog "$dir/error.log"
LogLevel warn
LoadModule mpm_prefork_module $APACHE_MODULES/mod_mpm_prefork.so
LoadModule authz_core_module $APACHE_MODULES/mod_authz_core.so
LoadModule alias_module $APACHE_MODULES/mod_alias.so
LoadModule mime_module $APACHE_MODULES/mod_mime.so
${\ ($env ? "LoadModule env_module $APACHE_MODULES/mod_env.so\n" : '') }$modules
# Start N children and keep N: never more (MaxRequestWorkers, ServerLimit),
# none killed as spare (MaxSpareServers), none recycled.
StartServers $workers
MinSpareServers $workers
MaxSpareServers $workers
ServerLimit $workers
MaxRequestWorkers $workers
MaxConnectionsPerChild 0
Timeout 30
TypesConfig /etc/mime.types
Alias /cgi-bin/ "$cgi_bin/"
<Directory />
    Require all denied
    AllowOverride None
</Directory>
<Directory "$cgi_bin">
    Require all granted
$env$handler</Directory>
CONF
    $conf .= "User $user\nGroup $group\n" if $user;
    return $conf;
}

sub kamado_missing {
    my ($root) = @_;
    my @missing = grep { !-e "$root/$_" } qw(script/kamado blib/lib blib/arch/auto/Kamado/Kamado.so);
    return @missing ? "not built (no @missing; perl Makefile.PL && make)" : undef;
}

1;
__END__

=head1 NAME

Kamado::Bench::Run - servers, ab, CPU and Apache configs for the benchmarks

=head1 SYNOPSIS

    use lib "$FindBin::RealBin/lib";
    use Kamado::Bench::Run qw(start_server stop_server run_ab free_port);
    my $port = free_port();
    my ($s, $why) = start_server(name => 'x', port => $port, dir => $dir, url => $url, command => [...]);
    my ($r, $error) = run_ab($url, 2000, 10);
    stop_server($s);

=cut
