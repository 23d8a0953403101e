package Kamado::Runner;
use 5.024;
use strict;
use warnings;

use Kamado;
use Kamado::Listener;
use Kamado::Options;
use Kamado::Prefork;
use Scalar::Util ();
use overload ();

# From options to a running server: the code behind script/kamado and
# Plack::Handler::Kamado.

# script/kamado: parses @ARGV, loads the app, serves; returns the exit code.
sub run_cli {
    my ($class, @argv) = @_;
    my $opt = Kamado::Options->parse_argv(@argv);
    if ($opt->{help}) {
        require Pod::Usage;
        Pod::Usage::pod2usage(-exitval => 'NOEXIT', -verbose => 2, -input => $0, -noperldoc => 1);
        return 0;
    }
    if ($opt->{version}) {
        print "Kamado $Kamado::VERSION (Perl $^V)\n";
        return 0;
    }
    unshift @INC, $opt->{include}->@* if $opt->{include};
    $ENV{PLACK_ENV} = $opt->{env};
    for my $module (($opt->{module} // [])->@*) {
        my ($name, $import) = split /=/, $module, 2;
        eval "require $name; 1" or die "kamado: can't load module $name: $@";
        $name->import(defined $import ? split(/,/, $import) : ());
    }
    my $file = $opt->{app} // 'app.psgi';
    die "kamado: app file '$file' not found\n" unless -f $file;
    my $loader = sub { Plack::Util::load_psgi($file) };
    my $app;
    if ($opt->{preload}) {
        $app = eval { $loader->() } // die "kamado: can't load $file: $@";
        die "kamado: can't load $file: it returned " . (ref $app || "'$app'") . ", not a PSGI application (a code reference)\n"
            unless _is_app($app);
    }
    return $class->serve($opt, app => $app, loader => $loader);
}

sub _describe_pool {
    my ($pool) = @_;
    return "pool $pool->{name} for $pool->{prefix} with $pool->{workers} worker" . ($pool->{workers} == 1 ? '' : 's')
        . (defined $pool->{timeout} ? ", --request-timeout $pool->{timeout}" : '');
}

sub _is_app {
    my ($app) = @_;
    return ref $app eq 'CODE' || (Scalar::Util::blessed($app) && overload::Method($app, '&{}'));
}

# Binds (or inherits) the listeners and runs the master.
sub serve {
    my ($class, $opt, %app) = @_;
    my @listeners = $class->listeners($opt);
    my $prefork = Kamado::Prefork->new(
        workers      => $opt->{workers},
        pools        => $opt->{pool},
        max_requests => $opt->{max_reqs_per_child},
        max_age      => $opt->{max_worker_age},
        graceful_timeout => $opt->{graceful_timeout},
        app          => $app{app},
        loader       => $app{loader},
        on_ready     => sub {
            print STDERR "[kamado] [$$] accepting connections at ", join(', ', map { $_->name } @listeners),
                " with $opt->{workers} workers", (map { '; ' . _describe_pool($_) } ($opt->{pool} // [])->@*), "\n";
            $opt->{server_ready}->({
                host => $listeners[0]->host, port => $listeners[0]->port,
                proto => 'http', server_software => 'Kamado',
            }) if $opt->{server_ready};
        },
        server_args => {
            listeners       => \@listeners,
            spool_threshold => $opt->{spool_threshold},
            max_rss         => $opt->{max_rss},
            request_timeout => $opt->{request_timeout},
            loop_settings   => {
                map { ($_ => $opt->{$_}) }
                    qw(keepalive_timeout header_timeout read_timeout write_timeout max_keepalive_reqs
                       max_connections max_request_body min_body_rate write_buffer),
            },
        },
    );
    my $status = $prefork->run;
    # a late TERM (a second one, or systemd's) must not turn a clean exit
    # into death by signal while Perl shuts down
    $SIG{$_} = 'IGNORE' for qw(TERM QUIT INT HUP);
    return $status;
}

# Inherited sockets win over --listen, as with Starman and Starlet.
sub listeners {
    my ($class, $opt) = @_;
    my @inherited = $ENV{SERVER_STARTER_PORT}
        ? Kamado::Listener->from_server_starter
        : Kamado::Listener->from_systemd;
    return @inherited if @inherited;
    my @specs = ($opt->{listen} // [])->@*;
    if (defined $opt->{socket}) {
        push @specs, $opt->{socket};
    }
    if (defined $opt->{port} || !@specs) {
        my $host = $opt->{host} // '';
        push @specs, ($host =~ /:/ ? "[$host]" : $host) . ':' . ($opt->{port} // 5000);
    }
    return map { Kamado::Listener->bind($_) } @specs;
}

1;
__END__

=head1 NAME

Kamado::Runner - from command-line options to a running Kamado

=cut
